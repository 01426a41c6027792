// The middleware a web config puts before every route: its headers, its rate limit, then basic auth with bcrypt as exporter-toolkit's.

import { createHmac, randomBytes } from "node:crypto";
import bcrypt from "bcryptjs";
import type express from "express";
import { AddressStandings, addressGroup, BcryptWorker, CheckQueue, CheckRefusedError, setNewest } from "./check-queue.js";
import type { RateLimit, WebConfig } from "./web-config.js";

/** Go's rate.Limiter as exporter-toolkit uses it: full at the start, one more token every `intervalMs` up to `burst`. */
export class TokenBucket {
  #tokens: number;
  #at: number;

  constructor(
    readonly limit: RateLimit,
    readonly now: () => number = () => performance.now(),
  ) {
    this.#tokens = limit.burst;
    this.#at = now();
  }

  take(): boolean {
    this.#refill();
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  waitMs(): number {
    this.#refill();
    return Math.max(0, (1 - this.#tokens) * this.limit.intervalMs);
  }

  #refill(): void {
    const now = this.now();
    this.#tokens = Math.min(this.limit.burst, this.#tokens + (now - this.#at) / this.limit.intervalMs);
    this.#at = now;
  }
}

const CHALLENGE = 'Basic realm="trading-exporter", charset="UTF-8"';
const GOOD_ENTRIES = 256;
const FAILED_ENTRIES = 4096;
const FAILED_TTL_MS = 5 * 60_000;

type Credentials = { user: string; password: string };

function credentialsOf(header: string | undefined): Credentials | undefined {
  const encoded = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header ?? "")?.[1] ?? "";
  const decoded = Buffer.from(encoded, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Closed after the answer (server.ts): a refused client passes the connection cap again to retry. */
function refuse(res: express.Response, status: 401 | 429, headers: Record<string, string>, text: string): void {
  res.status(status).set({ ...headers, connection: "close" });
  res.type("text/plain").send(`${status} ${text}\n`);
}

const busy = (res: express.Response) => refuse(res, 429, { "retry-after": "1" }, "Too Many Requests: too many password checks in progress, retry shortly");
const deny = (res: express.Response) => refuse(res, 401, { "WWW-Authenticate": CHALLENGE }, "Unauthorized: valid basic auth credentials required");

/** Credentials that passed skip bcrypt, ones that failed lately are refused without it, and the rest queue for the one bcrypt thread. */
export function basicAuth(
  users: Record<string, string>,
  options: { compare?: (password: string, hash: string) => Promise<boolean> } = {},
): express.RequestHandler {
  // A Map, so names such as "constructor" or "__proto__" find nothing inherited.
  const hashes = new Map(Object.entries(users));
  if (hashes.size === 0) return (_req, _res, next) => next();
  const now = Date.now;
  // A hash no password matches, so an unknown user costs one bcrypt run like a known one; at the highest configured cost:
  // with mixed costs no dummy matches all, and this never makes unknown users cheaper.
  const cost = Math.max(...[...hashes.values()].map((hash) => bcrypt.getRounds(hash)));
  const dummy = bcrypt.genSaltSync(cost) + bcrypt.encodeBase64(randomBytes(23), 23);
  // Digests keyed per process: the password is not kept, and a memory dump holds no unsalted digest.
  const key = randomBytes(32);
  const digestOf = ({ user, password }: Credentials): string => createHmac("sha256", key).update(user).update("\0").update(password).digest("base64");
  const good = new Map<string, true>();
  const failed = new Map<string, number>();
  const queue = new CheckQueue<boolean>(new AddressStandings(now));
  const compare = options.compare ?? new BcryptWorker().compare;
  const inFlight = new Map<string, Promise<boolean>>();

  const check = (credentials: Credentials, digest: string, group: string): Promise<boolean> => {
    const shared = inFlight.get(digest);
    if (shared !== undefined) return shared;
    const hash = hashes.get(credentials.user);
    const outcome = queue.submit(group, () => compare(credentials.password, hash ?? dummy)).then((matches) => matches && hash !== undefined);
    inFlight.set(digest, outcome);
    outcome.finally(() => inFlight.delete(digest)).catch(() => undefined);
    return outcome;
  };

  return (req, res, next) => {
    const credentials = credentialsOf(req.headers.authorization);
    if (credentials === undefined) return deny(res);
    const digest = digestOf(credentials);
    if (good.has(digest)) {
      setNewest(good, digest, true, GOOD_ENTRIES);
      return next();
    }
    if ((failed.get(digest) ?? 0) > now()) return deny(res);
    const group = addressGroup(req.socket.remoteAddress);
    check(credentials, digest, group).then(
      (ok) => {
        if (!ok) {
          setNewest(failed, digest, now() + FAILED_TTL_MS, FAILED_ENTRIES);
          queue.standings.add(group, "failures");
          return deny(res);
        }
        setNewest(good, digest, true, GOOD_ENTRIES);
        queue.standings.succeeded(group);
        next();
      },
      (error: unknown) => (error instanceof CheckRefusedError ? busy(res) : deny(res)),
    );
  };
}

/** The headers go on the 429s and 401s too; the rate limit comes before basic auth, so a flood past it costs no bcrypt. */
export function webGuards(config: WebConfig, events?: { rateLimited(): void }): express.RequestHandler[] {
  const guards: express.RequestHandler[] = [
    (_req, res, next) => {
      res.set(config.headers);
      next();
    },
  ];
  if (config.rateLimit !== undefined) {
    const bucket = new TokenBucket(config.rateLimit);
    guards.push((_req, res, next) => {
      if (bucket.take()) return next();
      events?.rateLimited();
      const retryAfter = String(Math.max(1, Math.ceil(bucket.waitMs() / 1000)));
      refuse(res, 429, { "retry-after": retryAfter }, "Too Many Requests: over the web config's rate_limit, retry shortly");
    });
  }
  return [...guards, basicAuth(config.basicAuthUsers)];
}
