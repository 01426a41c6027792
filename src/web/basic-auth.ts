// HTTP basic auth against bcrypt hashes, as exporter-toolkit does it: unknown users timed like known ones, good checks cached.

import { createHmac, randomBytes } from "node:crypto";
import bcrypt from "bcryptjs";
import type express from "express";

const CHALLENGE = 'Basic realm="trading-exporter", charset="UTF-8"';
const CACHE_ENTRIES = 256;
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

function deny(res: express.Response): void {
  res.status(401).set("WWW-Authenticate", CHALLENGE).type("text/plain");
  res.send("401 Unauthorized: valid basic auth credentials required\n");
}

/** Requires basic auth for every request when `users` (name -> bcrypt hash) is not empty; else passes through. */
export function basicAuth(users: Record<string, string>): express.RequestHandler {
  // A Map, so names such as "constructor" or "__proto__" find nothing inherited.
  const hashes = new Map(Object.entries(users));
  if (hashes.size === 0) return (_req, _res, next) => next();
  const dummy = dummyHash(highestCost(hashes.values()));
  const good = new GoodCredentials();

  return (req, res, next) => {
    const credentials = credentialsOf(req.headers.authorization);
    if (credentials === undefined) return deny(res);
    const digest = good.digest(credentials);
    if (good.has(digest)) return next();
    const hash = hashes.get(credentials.user);
    bcrypt.compare(credentials.password, hash ?? dummy).then((matches) => {
      if (!matches || hash === undefined) return deny(res);
      good.add(digest);
      next();
    }, next);
  };
}
