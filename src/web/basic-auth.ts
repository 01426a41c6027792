// HTTP basic auth against bcrypt hashes, as exporter-toolkit does it: unknown users timed like known ones,
// good checks cached, and failed checks bounded so a flood of wrong passwords cannot starve real scrapes.

import { createHmac, randomBytes } from "node:crypto";
import bcrypt from "bcryptjs";
import type express from "express";
import { BcryptPool, QueueFullError } from "./bcrypt-worker.js";

const CHALLENGE = 'Basic realm="trading-exporter", charset="UTF-8"';
const CACHE_ENTRIES = 256;
/** Recent wrong credentials remembered, and for how long: a repeated wrong password costs no bcrypt. */
const FAILED_ENTRIES = 4096;
const FAILED_TTL_MS = 5 * 60_000;
/**
 * bcrypt checks running or waiting at once (they run one at a time on one worker thread); more
 * are answered 429 at once. At cost 10 (~100 ms) a new credential waits at most about 0.4 s.
 */
export const MAX_QUEUED_CHECKS = 4;
/**
 * New credentials checked at once from one client address: a flood from one host holds one of the
 * MAX_QUEUED_CHECKS places, so Prometheus's first login after a restart still finds one free.
 */
export const MAX_CHECKS_PER_ADDRESS = 1;
const BCRYPT_BASE64 = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

interface Credentials {
  user: string;
  password: string;
}

function credentialsOf(header: string | undefined): Credentials | undefined {
  const match = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header ?? "");
  if (match?.[1] === undefined) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * A hash no password matches, at `cost`, so an unknown user costs one full bcrypt run like a known one.
 * Built from random characters rather than hashed, which would cost a bcrypt run at start-up.
 */
function dummyHash(cost: number): string {
  const digest = Array.from(randomBytes(31), (byte) => BCRYPT_BASE64[byte % 64]).join("");
  return bcrypt.genSaltSync(cost) + digest;
}

/** The highest configured cost: with mixed costs no dummy matches all, and this never makes unknown users cheaper. */
function highestCost(hashes: Iterable<string>): number {
  let cost = 4;
  for (const hash of hashes) cost = Math.max(cost, bcrypt.getRounds(hash));
  return cost;
}

/** Remembers credentials that passed, as keyed digests: a repeated scrape skips bcrypt, the password is not kept. */
class GoodCredentials {
  // A per-process key, so a memory dump does not hold unsalted password digests.
  readonly #key = randomBytes(32);
  readonly #entries = new Set<string>();

  digest({ user, password }: Credentials): string {
    return createHmac("sha256", this.#key).update(user).update("\0").update(password).digest("base64");
  }

  has(digest: string): boolean {
    if (!this.#entries.has(digest)) return false;
    // Most recently used last, so eviction drops the oldest.
    this.#entries.delete(digest);
    this.#entries.add(digest);
    return true;
  }

  add(digest: string): void {
    this.#entries.add(digest);
    if (this.#entries.size > CACHE_ENTRIES) {
      const oldest = this.#entries.values().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
  }
}

/** Credentials that failed lately, as keyed digests with an expiry; the oldest go first past FAILED_ENTRIES. */
class FailedCredentials {
  readonly #entries = new Map<string, number>();

  has(digest: string, now: number): boolean {
    const expires = this.#entries.get(digest);
    if (expires === undefined) return false;
    if (expires > now) return true;
    this.#entries.delete(digest);
    return false;
  }

  add(digest: string, now: number): void {
    this.#entries.delete(digest);
    this.#entries.set(digest, now + FAILED_TTL_MS);
    if (this.#entries.size > FAILED_ENTRIES) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
  }
}

function busy(res: express.Response): void {
  res.status(429).set("retry-after", "1").type("text/plain");
  res.send("429 Too Many Requests: too many password checks in progress, retry shortly\n");
}

function deny(res: express.Response): void {
  res.status(401).set("WWW-Authenticate", CHALLENGE).type("text/plain");
  res.send("401 Unauthorized: valid basic auth credentials required\n");
}

/**
 * Requires basic auth for every request when `users` (name -> bcrypt hash) is not empty; else passes
 * through. Credentials that passed before are let in without bcrypt and without waiting; ones that
 * failed lately are refused without bcrypt; the rest are checked on a worker thread, MAX_QUEUED_CHECKS
 * at most, and the same credentials arriving together share one check.
 */
export function basicAuth(users: Record<string, string>, options: { now?: () => number; onCheck?: () => void } = {}): express.RequestHandler {
  // A Map, so names such as "constructor" or "__proto__" find nothing inherited.
  const hashes = new Map(Object.entries(users));
  if (hashes.size === 0) return (_req, _res, next) => next();
  const now = options.now ?? Date.now;
  const dummy = dummyHash(highestCost(hashes.values()));
  const good = new GoodCredentials();
  const failed = new FailedCredentials();
  const pool = new BcryptPool(MAX_QUEUED_CHECKS);
  const inFlight = new Map<string, Promise<boolean>>();
  const checksBy = new Map<string, number>();

  const check = (credentials: Credentials, digest: string, address: string): Promise<boolean> => {
    let pending = inFlight.get(digest);
    if (pending === undefined) {
      const running = checksBy.get(address) ?? 0;
      if (running >= MAX_CHECKS_PER_ADDRESS) return Promise.reject(new QueueFullError("too many password checks from this address"));
      const hash = hashes.get(credentials.user);
      if (pool.size < MAX_QUEUED_CHECKS) options.onCheck?.();
      pending = pool.compare(credentials.password, hash ?? dummy).then((matches) => matches && hash !== undefined);
      inFlight.set(digest, pending);
      checksBy.set(address, running + 1);
      const done = (): void => {
        inFlight.delete(digest);
        const left = (checksBy.get(address) ?? 1) - 1;
        if (left > 0) checksBy.set(address, left);
        else checksBy.delete(address);
      };
      pending.then(done, done);
    }
    return pending;
  };

  return (req, res, next) => {
    const credentials = credentialsOf(req.headers.authorization);
    if (credentials === undefined) return deny(res);
    const digest = good.digest(credentials);
    if (good.has(digest)) return next();
    if (failed.has(digest, now())) return deny(res);
    check(credentials, digest, req.socket.remoteAddress ?? "").then(
      (ok) => {
        if (!ok) {
          failed.add(digest, now());
          return deny(res);
        }
        good.add(digest);
        next();
      },
      (error: unknown) => (error instanceof QueueFullError ? busy(res) : deny(res)),
    );
  };
}
