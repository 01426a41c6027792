// The middleware a web config puts before every route: its response headers, then basic auth.

import type express from "express";
import { basicAuth } from "./basic-auth.js";
import type { WebConfig } from "./types.js";

/** Sets http_server_config.headers on every response, the 401s of basic auth included when mounted before it. */
export function responseHeaders(headers: Record<string, string>): express.RequestHandler {
  const entries = Object.entries(headers);
  return (_req, res, next) => {
    for (const [name, value] of entries) res.setHeader(name, value);
    next();
  };
}

/** What the exporter mounts for a web config, in order. */
export function webGuards(config: WebConfig): express.RequestHandler[] {
  return [responseHeaders(config.headers), basicAuth(config.basicAuthUsers)];
}
