// The HTTP face of the exporter: /metrics, health paths and a landing page, on express.

import express, { type NextFunction, type Request, type Response } from "express";
import type { Logger } from "pino";
import type { Exporter } from "../exporter.js";
import { CONTENT_TYPE } from "../metrics/render.js";
import { Deadline } from "../util/deadline.js";
import { VERSION } from "../version.js";
import { ScrapeTimeoutError, scrapeBudgetSeconds, type TimeoutPolicy } from "./scrape-timeout.js";

export interface AppOptions {
  exporter: Exporter;
  logger: Logger;
  timeouts: TimeoutPolicy;
  /** Scrapes served at once; one more answers 503 at once. */
  maxInFlight: number;
}

function landing(): string {
  const links = ["/metrics", "/-/healthy", "/-/ready"].map((p) => `<li><a href="${p}">${p}</a></li>`).join("");
  return `<!doctype html><html><head><title>trading-exporter</title></head><body><h1>trading-exporter</h1><p>Version ${VERSION}</p><ul>${links}</ul></body></html>\n`;
}

export function createApp({ exporter, logger, timeouts, maxInFlight }: AppOptions): express.Express {
  let inFlight = 0;
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);

  app.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method === "GET" || req.method === "HEAD") return next();
    res.set("allow", "GET, HEAD").status(405).type("text/plain").send("method not allowed\n");
  });

  app.get("/", (_req, res) => {
    res.type("html").send(landing());
  });
  app.get("/-/healthy", (_req, res) => {
    res.type("text/plain").send("Healthy\n");
  });
  app.get("/-/ready", (_req, res) => {
    res.type("text/plain").send("Ready\n");
  });

  app.get("/metrics", async (req, res) => {
    let budget: number;
    try {
      budget = scrapeBudgetSeconds(req.get("x-prometheus-scrape-timeout-seconds"), timeouts);
    } catch (error) {
      if (!(error instanceof ScrapeTimeoutError)) throw error;
      res.status(400).type("text/plain").send(`${error.message}\n`);
      return;
    }
    if (inFlight >= maxInFlight) {
      exporter.self.scrapeRejected();
      res.status(503).set("retry-after", "1").type("text/plain").send("too many scrapes in flight\n");
      return;
    }
    inFlight++;
    try {
      const body = await exporter.metrics(new Deadline(budget));
      res.set("content-type", CONTENT_TYPE).send(body);
    } finally {
      inFlight--;
    }
  });

  app.use((_req: Request, res: Response) => {
    res.status(404).type("text/plain").send("not found\n");
  });

  // Express 5 routes rejected promises here: one request fails, the process goes on.
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    logger.error({ path: req.path, error: error instanceof Error ? error.message : String(error) }, "request failed");
    if (!res.headersSent) res.status(500).type("text/plain").send("internal error\n");
  });
  return app;
}
