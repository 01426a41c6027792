// The runbook pages as HTML: each alert's Markdown through markdown-it, in one small page layout, and their index.

import MarkdownIt from "markdown-it";
import { VERSION } from "../version.js";
import { RUNBOOK_CSS_NAME } from "./runbook-css.js";
import { RUNBOOK_MARKDOWN } from "./runbook-texts.js";

/**
 * CommonMark with GitHub's tables, as GitHub shows runbooks/*.md. Raw HTML is off so a `<tag>` in a
 * runbook is shown as text: the pages are safe by construction, not by trusting our own Markdown.
 * markdown-it's link check refuses javascript:, vbscript:, file: and data: URLs.
 */
const markdown = new MarkdownIt("default", { html: false, linkify: false, typographer: false });
const escapeHtml = markdown.utils.escapeHtml;

/** No inline style or script: a `default-src 'self'` policy leaves the page whole. */
function page(title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${escapeHtml(title)}</title><link rel="stylesheet" href="${RUNBOOK_CSS_NAME}"></head><body>\n${body}\n` +
    `<hr><p><a href="./">All runbooks</a> · trading-exporter ${escapeHtml(VERSION)}</p></body></html>\n`
  );
}

/** One runbook's Markdown as HTML. */
export function renderRunbook(text: string): string {
  return markdown.render(text);
}

/** Every runbook page by alert name, and the index linking them. */
export function renderRunbookPages() {
  const names = Object.keys(RUNBOOK_MARKDOWN).sort();
  const pages = new Map(names.map((name) => [name, page(`${name}: trading-exporter runbook`, renderRunbook(RUNBOOK_MARKDOWN[name] ?? ""))]));
  // The generator admits only plain alert names, so each is its own link text and relative URL.
  const list = names.map((n) => `- [${n}](${n})`).join("\n");
  return { pages, index: page("trading-exporter runbooks", renderRunbook(`# Runbooks\n\n${list}\n`)) };
}
