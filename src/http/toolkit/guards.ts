// The middleware a web config puts before every route: its response headers, its rate limit, then basic auth.

import type express from "express";
import { basicAuth } from "./basic-auth.js";
import { rateLimit } from "./rate-limit.js";
import type { WebConfig } from "./web-config-schema.js";

export interface GuardEvents {
  rateLimited(): void;
}

/** The headers go on the 429s and 401s too; the rate limit comes before basic auth, so a flood past it costs no bcrypt. */
export function webGuards(config: WebConfig, events?: GuardEvents): express.RequestHandler[] {
  const headers: express.RequestHandler = (_req, res, next) => {
    res.set(config.headers);
    next();
  };
  return [headers, rateLimit(config.rateLimit, () => events?.rateLimited()), basicAuth(config.basicAuthUsers)];
}
