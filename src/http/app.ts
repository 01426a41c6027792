// The HTTP face of the exporter: /metrics, /probe, /sd, reload, health paths and the status page, on express.

import express, { type NextFunction, type Request, type Response } from "express";
import type { Logger } from "pino";
import { type Exporter, NoAnswerSlot } from "../scrape-answers.js";
import type { Answer } from "../metrics/answer.js";
import { sendMetrics } from "./metrics-response.js";
import { scrapeBudgetSeconds, type TimeoutPolicy } from "./scrape-budget.js";
import { Deadline } from "../util/deadline.js";
import type { Redactor } from "../util/redact.js";
import { MARKET_TARGET } from "../config/sharding.js";
import { libraryErrorText } from "../util/error-text.js";
import { ConfigError } from "../config/errors.js";
import { runbooks } from "./pages/runbooks.js";
import { STATUS_CSS } from "./pages/status-css.js";
import { setPageHeaders } from "./pages/page-headers.js";
import { STATUS_CSS_PATH, statusPageHtml } from "./pages/status-page.js";
import type { AccountConfig } from "../config/types.js";

export interface AppOptions {
  exporter: Exporter;
  logger: Logger;
  timeouts: TimeoutPolicy;
  telemetryPath?: string;
  /** Every path is served under it ("/trading", Prometheus's --web.route-prefix); "/" when not given. */
  routePrefix?: string;
  /** Where clients reach the exporter, ending in "/" (--web.external-url): /sd's targets carry it. */
  externalUrl?: URL | undefined;
  /** Re-reads the configuration; rejects with a one-line reason. Absent: reload is not offered. */
  reload?: () => Promise<void>;
  guards?: express.RequestHandler[];
  /** Why `name` is not served here though configured (it belongs to another shard), or undefined. */
  servedElsewhere?: (name: string) => string | undefined;
}

/** Log lines quote at most this much of a request's path: a client chooses its length (up to Node's 16 KiB of headers). */
export const LOGGED_PATH_CHARS = 100;

/** Why to refuse a state-changing request as a page of another site's (browsers say so, curl does not), or undefined. */
function crossSiteReason(req: Request): string | undefined {
  if (req.get("sec-fetch-site")?.trim().toLowerCase() === "cross-site") return "refused: a cross-site browser request (Sec-Fetch-Site: cross-site)";
  const origin = req.get("origin");
  if (origin === undefined) return undefined;
  // An Origin is our own only when it is the Host the request was sent to (never `null`).
  const host = URL.parse(origin.trim())?.host.toLowerCase();
  return host && host === req.get("host")?.trim().toLowerCase() ? undefined : "refused: the request's Origin is not this exporter's own";
}

/** host:port as a client can reach it: the Host header when it is one, else the socket's local address. */
function reachedAddress(req: Request): string {
  const host = req.get("host");
  if (host !== undefined && /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(host)) return host;
  const ip = req.socket.localAddress ?? "127.0.0.1";
  return `${ip.includes(":") ? `[${ip}]` : ip}:${req.socket.localPort ?? 9842}`;
}

/** A plain-text answer: our own words, a reload's reason redacted (reloadRoute). */
function plain(res: Response, status: number, text: string): void {
  res.status(status).type("text/plain").send(`${text}\n`);
}

/** A scrape waits for the venue holding nothing; the exporter takes an answer slot (--web.max-requests) only to make its answer. */
async function serveScrape(req: Request, res: Response, timeouts: TimeoutPolicy, scrape: (d: Deadline) => Promise<Answer>, contentType?: string) {
  const budget = scrapeBudgetSeconds(req.get("x-prometheus-scrape-timeout-seconds"), timeouts);
  if (typeof budget === "string") return plain(res, 400, budget);
  try {
    sendMetrics(res, await scrape(new Deadline(budget)), contentType);
  } catch (error) {
    if (!(error instanceof NoAnswerSlot)) throw error;
    res.set("retry-after", "1");
    plain(res, 503, "too many answers being made at once (--web.max-requests)");
  }
}

/** The probe's target in the configuration served now: the market target, an account, or why neither. */
function probeTarget(options: AppOptions, target: string): { account: AccountConfig | undefined } | { refused: string } {
  const { exporter } = options;
  if (target === MARKET_TARGET && exporter.ownsMarkets()) return { account: undefined };
  const account = exporter.account(target);
  if (account !== undefined) return { account };
  const elsewhere = options.servedElsewhere?.(target);
  return { refused: `target: ${elsewhere ?? "not a configured account name"}` };
}

function pageRoutes(routes: express.Router, exporter: Exporter, telemetryPath: string): void {
  routes.get("/", (_req, res) => {
    setPageHeaders(res);
    res.set("cache-control", "no-store").type("html").send(statusPageHtml(exporter, telemetryPath));
  });
  // Its own path so a policy of default-src 'self' allows it; it changes only with the version.
  routes.get(STATUS_CSS_PATH, (_req, res) => res.set("cache-control", "public, max-age=3600").type("css").send(STATUS_CSS));
  routes.get("/-/healthy", (_req, res) => plain(res, 200, "Healthy"));
  routes.get("/-/ready", (_req, res) => plain(res, 200, "Ready"));
  routes.use("/runbooks", runbooks());
}

/** Prometheus http_sd_configs: every account a /probe target with instance its name (no account label: the series carry it). */
function discovery(exporter: Exporter, externalUrl: URL | undefined): express.RequestHandler {
  return (req, res) => {
    const reached = externalUrl ?? new URL(`${req.protocol}://${reachedAddress(req)}${req.baseUrl}/`);
    const group = (target: string, labels: Record<string, string>) => ({
      targets: [reached.host],
      labels: { __scheme__: reached.protocol.slice(0, -1), __metrics_path__: `${reached.pathname}probe`, __param_target: target, instance: target, ...labels },
    });
    const groups = exporter.accountNames().map((name) => group(name, { __meta_trading_account: name, __meta_trading_target_kind: "account" }));
    if (exporter.ownsMarkets()) groups.push(group(MARKET_TARGET, { __meta_trading_target_kind: "markets" }));
    res.json(groups);
  };
}

function scrapeRoutes(routes: express.Router, options: AppOptions, telemetryPath: string): void {
  const { exporter, timeouts } = options;
  // Every account of this shard in one target; the market families once in a fleet, on the shard that owns them.
  routes.get(telemetryPath, (req, res) =>
    serveScrape(req, res, timeouts, (deadline) => exporter.metrics(deadline, { marketFamilies: exporter.ownsMarkets() })),
  );
  // The exporter's own metrics alone (blackbox_exporter's /metrics beside /probe): a job that keeps them costs the venue nothing.
  routes.get("/exporter-metrics", async (_req, res) => sendMetrics(res, await exporter.ownMetrics()));
  routes.get("/sd", discovery(exporter, options.externalUrl));
  routes.get("/probe", async (req, res) => {
    const target = req.query.target;
    if (Array.isArray(target)) return plain(res, 400, "target: given more than once (a probe is of one target)");
    // The target is only ever looked up by name, never used as a URL, and never echoed back.
    if (typeof target !== "string" || target === "") return plain(res, 400, `target: required (a configured account name, or ${MARKET_TARGET})`);
    const found = probeTarget(options, target);
    if ("refused" in found) return plain(res, 400, found.refused);
    if (req.query.debug === "true") return serveScrape(req, res, timeouts, (deadline) => exporter.debug(deadline, found.account), "text/plain; charset=utf-8");
    const scrape = found.account === undefined ? { accounts: [], marketFamilies: true } : { accounts: [found.account.name], marketFamilies: false };
    await serveScrape(req, res, timeouts, (deadline) => exporter.metrics(deadline, scrape));
  });
}

function reloadRoute(routes: express.Router, reload: () => Promise<void>, redactor: Redactor): void {
  routes.post("/-/reload", async (req, res) => {
    // A page of another site could otherwise reload the exporter (a form or a no-cors fetch needs no permission).
    const crossSite = crossSiteReason(req);
    if (crossSite !== undefined) return plain(res.set("connection", "close"), 403, crossSite);
    try {
      await reload();
      plain(res, 200, "configuration reloaded");
    } catch (error) {
      plain(res, 500, redactor.redact(`reload failed: ${error instanceof ConfigError ? error.message : libraryErrorText(error, "unexpected failure")}`));
    }
  });
}

/** Express 5 routes rejected promises here: one request fails, the process goes on. */
function failedRequest(logger: Logger): express.ErrorRequestHandler {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const path = req.path.length > LOGGED_PATH_CHARS ? `${req.path.slice(0, LOGGED_PATH_CHARS)}... (${req.path.length} characters)` : req.path;
    // A malformed percent-escape in a path parameter (`/runbooks/%zz`) is the client's: an answer, not an error-level line.
    const malformed = error instanceof URIError || (error as { status?: unknown } | null)?.status === 400;
    if (malformed) logger.debug({ path }, "request refused: malformed escape in the path");
    else logger.error({ path, error: libraryErrorText(error, "unexpected failure") }, "request failed");
    if (!res.headersSent) plain(res, malformed ? 400 : 500, malformed ? "bad request: malformed percent-escape in the path" : "internal error");
  };
}

export function createApp(options: AppOptions): express.Express {
  const { telemetryPath = "/metrics", routePrefix = "/", reload } = options;
  const app = express();
  // Paths are exact, as in Go's ServeMux that Prometheus users know: /METRICS and /metrics/ are 404.
  app.set("case sensitive routing", true);
  app.set("strict routing", true);
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", "simple");
  app.use((_req: Request, res: Response, next: NextFunction) => {
    res.set("x-content-type-options", "nosniff");
    next();
  });
  for (const guard of options.guards ?? []) app.use(guard);

  const routes = express.Router({ caseSensitive: true, strict: true });
  routes.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method === "GET" || req.method === "HEAD") return next();
    if (req.method === "POST" && req.path === "/-/reload" && reload) return next();
    res.set("allow", req.path === "/-/reload" ? "POST" : "GET, HEAD");
    plain(res, 405, "method not allowed");
  });
  pageRoutes(routes, options.exporter, telemetryPath);
  scrapeRoutes(routes, options, telemetryPath);
  if (reload) reloadRoute(routes, reload, options.exporter.redactor);

  // The prefix itself goes to its folder, where the status page's relative links resolve (Go's ServeMux does the same).
  if (routePrefix !== "/") app.get(routePrefix, (_req, res) => res.redirect(301, `${routePrefix}/`));
  app.use(routePrefix, routes);
  app.use((_req: Request, res: Response) => plain(res, 404, "not found"));
  app.use(failedRequest(options.logger));
  return app;
}
