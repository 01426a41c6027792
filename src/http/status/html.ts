// HTML escaped by construction: every value put in an html`` template is escaped unless it is itself html.

import { escapeHtml } from "../../util/html-escape.js";

/** A piece of HTML that is safe as it is: made only by the html`` tag. */
export class Html {
  constructor(readonly text: string) {}
}

export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  // The cooked strings as String.raw's pieces: the template's escapes (\n) keep their meaning.
  return new Html(String.raw({ raw: strings }, ...values.map(render)));
}
