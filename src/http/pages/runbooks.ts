// Serves each alert's runbook as an HTML page at /runbooks/<alertname>, so an alert's runbook_url opens wherever the exporter runs.

import express, { type Request, type Response } from "express";
import { setPageHeaders } from "./page-headers.js";

/** The stylesheet's name beside the pages, so a `default-src 'self'` policy allows it (an inline <style> it refuses); no alert name has a dot. */
const CSS_NAME = "runbook.css";

const CSS = `body { font-family: system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; color: #1b1b1b; }
pre { background: #f4f4f4; padding: 0.75rem; overflow-x: auto; border-radius: 4px; }
code { font-size: 0.95em; }
h1, p, li, td, :not(pre) > code { overflow-wrap: anywhere; }
:not(pre) > code { background: #f4f4f4; padding: 0 0.2em; border-radius: 3px; }
table { border-collapse: collapse; display: block; overflow-x: auto; }
td, th { border: 1px solid #ccc; padding: 0.25rem 0.5rem; text-align: left; }
th { background: #f4f4f4; }
`;

export function runbooks(): express.Router {
  // Rendered at the first visit and kept: loading the Markdown library at start would delay every start.
  const render = () => import("./runbook-pages.js").then((m) => m.renderRunbookPages(CSS_NAME));
  let rendered: ReturnType<typeof render> | undefined;
  const pages = () => (rendered ??= render());
  const router = express.Router({ strict: true, caseSensitive: true });
  router.get("/", async (req: Request, res: Response) => {
    if (!req.originalUrl.split("?")[0]?.endsWith("/")) return res.redirect(301, `${req.baseUrl}/`);
    setPageHeaders(res);
    res.type("html").send((await pages()).index);
  });
  // Before /:name, which would take it for an alert; it changes only with the version.
  router.get(`/${CSS_NAME}`, (_req: Request, res: Response) => res.set("cache-control", "public, max-age=3600").type("css").send(CSS));
  router.get("/:name", async (req: Request, res: Response) => {
    const html = (await pages()).pages.get(String(req.params.name));
    if (html === undefined) return res.status(404).type("text/plain").send("no runbook for that alert\n");
    setPageHeaders(res);
    res.type("html").send(html);
  });
  return router;
}
