// The HTTP face of the exporter: /metrics, /probe, /sd, reload, health paths and the status page, on express.

import express, { type NextFunction, type Request, type Response } from "express";
import type { Logger } from "pino";
import type { Exporter } from "../exporter.js";
import type { Answer } from "../metrics/answer.js";
import { acceptsGzip, sendMetrics } from "./metrics-response.js";
import { Deadline } from "../util/deadline.js";
import { VERSION } from "../version.js";
import { redact } from "../util/redact.js";
import { discoveryGroups, reachedAddress } from "./service-discovery.js";
import { MARKET_TARGET } from "../config/sharding.js";
import { libraryErrorText } from "../util/error-text.js";
import { ConfigError } from "../config/errors.js";
import { ScrapeTimeoutError, scrapeBudgetSeconds, type TimeoutPolicy } from "./scrape-timeout.js";
import { runbooks } from "./runbooks.js";
import { ScrapeSlots } from "./scrape-slots.js";
import { STATUS_CSS } from "./status-css.js";
import { statusData } from "./status-data.js";
import { STATUS_CSS_PATH, statusPage } from "./status-page.js";

export interface AppOptions {
  exporter: Exporter;
  logger: Logger;
  timeouts: TimeoutPolicy;
  /** Scrapes served at once (0: no limit); four times as many more wait up to half their budget for a slot, then answer 503. */
  maxInFlight: number;
  /** Where the exporter's metrics are served; "/metrics" when not given. */
  telemetryPath?: string;
  /** Re-reads the configuration; rejects with a one-line reason. Absent: reload is not offered. */
  reload?: () => Promise<void>;
  /** Run before every route (basic auth, response headers). */
  guards?: express.RequestHandler[];
}

/** Log lines quote at most this much of a request's path: a client chooses its length (up to Node's 16 KiB of headers). */
export const LOGGED_PATH_CHARS = 100;

function loggedPath(path: string): string {
  return path.length > LOGGED_PATH_CHARS ? `${path.slice(0, LOGGED_PATH_CHARS)}... (${path.length} characters)` : path;
}

/** The router's URIError from a malformed percent-escape in a path parameter (`/runbooks/%zz`): the client's fault. */
function isMalformedPath(error: unknown): boolean {
  return error instanceof URIError || (error as { status?: unknown } | null)?.status === 400;
}

/** The status page of the latest collection: it never collects, so opening it costs the venue nothing. */
function status(exporter: Exporter, telemetryPath: string): string {
  const shown = exporter.accountNames().map((name) => ({ name, collateralIds: exporter.account(name)?.collateralIds ?? [] }));
  const result = exporter.latest.result(shown.map((a) => a.name));
  return statusPage({
    data: statusData(result, shown, (endpoint, account) => exporter.latest.lastFailure(endpoint, account)),
    collected: result !== undefined,
    version: VERSION,
    uptimeSeconds: process.uptime(),
    telemetryPath,
    now: Date.now(),
  });
}

/** A plain-text answer; every known secret and Authorization value in it shows as <secret>. */
function plain(res: Response, status: number, text: string): void {
  res
    .status(status)
    .type("text/plain")
    .send(`${redact(text)}\n`);
}

export function createApp(options: AppOptions): express.Express {
  const { exporter, logger, timeouts, maxInFlight, telemetryPath = "/metrics" } = options;
  // The line is longer than the limit: at 1,000 probe targets a busy host slows every probe at once.
  const slots = maxInFlight === 0 ? new ScrapeSlots(Number.POSITIVE_INFINITY, 0) : new ScrapeSlots(maxInFlight, 4 * maxInFlight);
  const app = express();
  // Paths are exact, as in Go's ServeMux that Prometheus users know: /METRICS and /metrics/ are 404.
  // Set before the first route: the router takes them when it is made.
  app.set("case sensitive routing", true);
  app.set("strict routing", true);
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", "simple");

  // Every answer is text (metrics, reports, messages), the status page or its stylesheet: never sniffed as something else.
  app.use((_req: Request, res: Response, next: NextFunction) => {
    res.set("x-content-type-options", "nosniff");
    next();
  });
  for (const guard of options.guards ?? []) app.use(guard);

  app.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method === "GET" || req.method === "HEAD") return next();
    if (req.method === "POST" && req.path === "/-/reload" && options.reload) return next();
    res.set("allow", req.path === "/-/reload" ? "POST" : "GET, HEAD");
    plain(res, 405, "method not allowed");
  });

  /** Budget from Prometheus's header, the in-flight limit, then `scrape`, answered in the negotiated format. */
  async function serveScrape(req: Request, res: Response, scrape: (deadline: Deadline) => Promise<Answer>): Promise<void> {
    let budget: number;
    try {
      budget = scrapeBudgetSeconds(req.get("x-prometheus-scrape-timeout-seconds"), timeouts);
    } catch (error) {
      if (!(error instanceof ScrapeTimeoutError)) throw error;
      return plain(res, 400, error.message);
    }
    // Half the budget at most in the line, so a scrape let in still has half to collect in.
    const waitStarted = Date.now();
    if (!(await slots.acquire((budget * 1000) / 2))) {
      exporter.self.scrapeRejected();
      res.set("retry-after", "1");
      return plain(res, 503, "too many scrapes in flight");
    }
    try {
      const out = await scrape(new Deadline(budget - (Date.now() - waitStarted) / 1000));
      sendMetrics(res, out, acceptsGzip(req.get("accept-encoding")));
    } finally {
      slots.release();
    }
  }

  app.get("/", (_req, res) => {
    res.set("cache-control", "no-store").type("html").send(status(exporter, telemetryPath));
  });
  // Its own path so a policy of default-src 'self' allows it; it changes only with the version.
  app.get(STATUS_CSS_PATH, (_req, res) => {
    res.set("cache-control", "public, max-age=3600").type("css").send(STATUS_CSS);
  });
  app.get("/-/healthy", (_req, res) => plain(res, 200, "Healthy"));
  app.get("/-/ready", (_req, res) => plain(res, 200, "Ready"));
  app.use("/runbooks", runbooks());

  // Every account of this shard in one target; the market families once in a fleet, on the shard that owns them.
  app.get(telemetryPath, (req, res) => serveScrape(req, res, (deadline) => exporter.metrics(deadline, { marketFamilies: exporter.ownsMarkets() })));

  // The exporter's own metrics without any account's, as blackbox_exporter's /metrics beside its /probe:
  // the job that keeps them with the /probe pattern then costs the venue nothing.
  app.get("/exporter-metrics", async (req, res) => {
    sendMetrics(res, await exporter.ownMetrics(), acceptsGzip(req.get("accept-encoding")));
  });

  // Prometheus http_sd_configs: every account as a /probe target, current after a reload.
  app.get("/sd", (req, res) => {
    const address = reachedAddress(req.get("host"), req.socket.localAddress, req.socket.localPort);
    res
      .status(200)
      .type("application/json")
      .send(JSON.stringify(discoveryGroups(exporter.accountNames(), address, exporter.ownsMarkets())));
  });

  app.get("/probe", async (req, res) => {
    const target = req.query.target;
    // The target is only ever looked up by name, never used as a URL, and never echoed back.
    if (typeof target !== "string" || target === "") return plain(res, 400, `target: required (a configured account name, or ${MARKET_TARGET})`);
    // The venue's public market list is a target of its own (on one shard); an account's answer never carries it.
    const markets = target === MARKET_TARGET && exporter.ownsMarkets();
    const account = markets ? undefined : exporter.account(target);
    if (!markets && account === undefined) return plain(res, 400, "target: not a configured account name");
    if (req.query.debug === "true") {
      const budget = scrapeBudgetSeconds(undefined, timeouts);
      res.type("text/plain").send(redact(await exporter.debug(new Deadline(budget), account)));
      return;
    }
    const options = account === undefined ? { accounts: [], marketFamilies: true } : { accounts: [account.name], marketFamilies: false };
    await serveScrape(req, res, (deadline) => exporter.metrics(deadline, options));
  });

  if (options.reload) {
    const reload = options.reload;
    app.post("/-/reload", async (_req, res) => {
      try {
        await reload();
        plain(res, 200, "configuration reloaded");
      } catch (error) {
        plain(res, 500, `reload failed: ${error instanceof ConfigError ? error.message : libraryErrorText(error, "unexpected failure")}`);
      }
    });
  }

  app.use((_req: Request, res: Response) => plain(res, 404, "not found"));

  // Express 5 routes rejected promises here: one request fails, the process goes on.
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (isMalformedPath(error)) {
      // Anyone can send it, as often as they like: an answer, not an error-level line.
      logger.debug({ path: loggedPath(req.path) }, "request refused: malformed escape in the path");
      if (!res.headersSent) plain(res, 400, "bad request: malformed percent-escape in the path");
      return;
    }
    logger.error({ path: loggedPath(req.path), error: libraryErrorText(error, "unexpected failure") }, "request failed");
    if (!res.headersSent) plain(res, 500, "internal error");
  });
  return app;
}
