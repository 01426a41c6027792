// Serves each alert's runbook as an HTML page at /runbooks/<alertname>, so an alert's runbook_url opens wherever the exporter runs.

import express, { type Request, type Response } from "express";
import { setPageHeaders } from "./page-headers.js";
import { RUNBOOK_CSS, RUNBOOK_CSS_NAME } from "./runbook-css.js";

export function runbooks(): express.Router {
  // Rendered at the first visit and kept: loading the Markdown library at start would delay every start.
  const render = () => import("./runbook-pages.js").then((m) => m.renderRunbookPages());
  let rendered: ReturnType<typeof render> | undefined;
  const pages = () => (rendered ??= render());
  const router = express.Router({ strict: true, caseSensitive: true });
  router.get("/", async (req: Request, res: Response) => {
    if (!req.originalUrl.split("?")[0]?.endsWith("/")) return res.redirect(301, `${req.baseUrl}/`);
    setPageHeaders(res);
    res.type("html").send((await pages()).index);
  });
  // Before /:name, which would take it for an alert; it changes only with the version.
  router.get(`/${RUNBOOK_CSS_NAME}`, (_req: Request, res: Response) => {
    res.set("cache-control", "public, max-age=3600").type("css").send(RUNBOOK_CSS);
  });
  router.get("/:name", async (req: Request, res: Response) => {
    const html = (await pages()).pages.get(String(req.params.name));
    if (html === undefined) return res.status(404).type("text/plain").send("no runbook for that alert\n");
    setPageHeaders(res);
    res.type("html").send(html);
  });
  return router;
}
