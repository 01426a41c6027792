// Serves each alert's runbook as an HTML page at /runbooks/<alertname>, so an alert's runbook_url opens wherever the exporter runs.

import express, { type Request, type Response } from "express";
import { VERSION } from "../version.js";
import { escapeHtml, renderMarkdown } from "./markdown.js";
import { RUNBOOK_MARKDOWN } from "./runbook-texts.js";

const STYLE =
  "body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;line-height:1.5}" +
  "pre{background:#f4f4f4;padding:.75rem;overflow-x:auto}code{font-size:.95em}" +
  "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}";

function page(title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
    `<style>${STYLE}</style></head><body>\n${body}\n` +
    `<hr><p><a href="./">All runbooks</a> · trading-exporter ${escapeHtml(VERSION)}</p></body></html>\n`
  );
}

/** Rendered once: the pages are fixed for the life of the process. */
function renderAll(): { pages: Map<string, string>; index: string } {
  const names = Object.keys(RUNBOOK_MARKDOWN).sort();
  const pages = new Map(names.map((name) => [name, page(`${name}: trading-exporter runbook`, renderMarkdown(RUNBOOK_MARKDOWN[name] ?? ""))]));
  const links = names.map((n) => `<li><a href="${n}">${n}</a></li>`).join("");
  return { pages, index: page("trading-exporter runbooks", `<h1>Runbooks</h1><ul>${links}</ul>`) };
}

/** The router to mount at /runbooks: the index at /runbooks/, one page per alert, 404 for any other name. */
export function runbooks(): express.Router {
  const { pages, index } = renderAll();
  const router = express.Router({ strict: true, caseSensitive: true });
  router.get("/", (req: Request, res: Response) => {
    // A relative link from /runbooks (no slash) would leave the folder: send it to /runbooks/.
    if (!req.originalUrl.split("?")[0]?.endsWith("/")) return res.redirect(301, `${req.baseUrl}/`);
    res.type("html").send(index);
  });
  router.get("/:name", (req: Request, res: Response) => {
    const html = pages.get(String(req.params.name));
    if (html === undefined) return res.status(404).type("text/plain").send("no runbook for that alert\n");
    res.type("html").send(html);
  });
  return router;
}
