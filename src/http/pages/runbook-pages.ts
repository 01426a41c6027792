// The runbook pages as HTML: each alert's Markdown through markdown-it, in one small page layout, and their index.

import MarkdownIt from "markdown-it";
import { VERSION } from "../../version.js";
import { RUNBOOK_MARKDOWN } from "./runbook-texts.js";

/** Raw HTML off: a `<tag>` in a runbook shows as text, so the pages are safe by construction, not by trust. */
const markdown = new MarkdownIt("default", { html: false, linkify: false, typographer: false });
const escapeHtml = markdown.utils.escapeHtml;

export const renderRunbook = (text: string): string => markdown.render(text);

/** Every page by alert name, and the index; `css` is the stylesheet's path relative to them. */
export function renderRunbookPages(css: string) {
  const page = (title: string, body: string): string =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${escapeHtml(title)}</title><link rel="stylesheet" href="${css}"></head><body>\n${body}\n` +
    `<hr><p><a href="./">All runbooks</a> · trading-exporter ${escapeHtml(VERSION)}</p></body></html>\n`;
  const names = Object.keys(RUNBOOK_MARKDOWN).sort();
  const pages = new Map(names.map((name) => [name, page(`${name}: trading-exporter runbook`, renderRunbook(RUNBOOK_MARKDOWN[name] ?? ""))]));
  const list = names.map((n) => `- [${n}](${n})`).join("\n");
  return { pages, index: page("trading-exporter runbooks", renderRunbook(`# Runbooks\n\n${list}\n`)) };
}
