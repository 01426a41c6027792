// Serves each alert's runbook as an HTML page at /runbooks/<alertname>, so an alert's runbook_url opens wherever the exporter runs.

import express, { type Request, type Response } from "express";
import type { RunbookPages } from "./runbook-pages.js";

/** The router to mount at /runbooks: the index at /runbooks/, one page per alert, 404 for any other name. */
export function runbooks(): express.Router {
  // Rendered at the first visit and kept: the pages are fixed for the life of the process, and loading
  // the Markdown library and rendering them (about 35 ms) would otherwise delay every start.
  let rendered: Promise<RunbookPages> | undefined;
  const pages = (): Promise<RunbookPages> => {
    rendered ??= import("./runbook-pages.js").then((m) => m.renderRunbookPages());
    return rendered;
  };
  const router = express.Router({ strict: true, caseSensitive: true });
  router.get("/", async (req: Request, res: Response) => {
    // A relative link from /runbooks (no slash) would leave the folder: send it to /runbooks/.
    if (!req.originalUrl.split("?")[0]?.endsWith("/")) return res.redirect(301, `${req.baseUrl}/`);
    res.type("html").send((await pages()).index);
  });
  router.get("/:name", async (req: Request, res: Response) => {
    const html = (await pages()).pages.get(String(req.params.name));
    if (html === undefined) return res.status(404).type("text/plain").send("no runbook for that alert\n");
    res.type("html").send(html);
  });
  return router;
}
