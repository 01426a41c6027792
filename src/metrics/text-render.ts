// A spec-exact renderer of gauge families to the Prometheus text format: the Prometheus client's output for the
// same families without its blank lines between families (proven by test/render.test.ts), several
// times faster, written straight into one reused buffer, each label set's text made once per label
// array. Without blank lines, gauges are also OpenMetrics as they are, so one compressed piece serves both.

import type { Family } from "./family.js";

export const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

const NEEDS_ESCAPE = /[\\\n"]/;

function escapeLabel(value: string): string {
  return NEEDS_ESCAPE.test(value) ? value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"') : value;
}

/** the Prometheus client's number format: Nan, +Inf, -Inf, else JavaScript's shortest round-trip form. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "Nan";
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  return `${value}`;
}

/** `a="x",b="y"` for the sample's non-null labels, "" when it has none. */
function labelText(prefixes: readonly string[], values: ReadonlyArray<string | null>): string {
  let text = "";
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value === null || value === undefined) continue;
    text += `${text === "" ? "" : ","}${prefixes[i]}${escapeLabel(value)}"`;
  }
  return text;
}

/** The text of one family: HELP, TYPE and one line per distinct label set (a repeat keeps its first place, last value). */
function renderFamily(family: Family): string {
  const name = escapeHelp(family.name);
  const lines = [`# HELP ${name} ${escapeHelp(family.help)}`, `# TYPE ${name} ${family.type}`];
  const prefixes = family.labelNames.map((label) => `${label}="`);
  // Collectors give each series once; only cut label values can make two alike (see addSample).
  const seen = family.capped === true ? new Map<string, number>() : undefined;
  for (const sample of family.samples) {
    const labels = labelText(prefixes, sample.labels);
    const head = labels === "" ? name : `${name}{${labels}}`;
    const line = `${head} ${formatValue(sample.value)}`;
    const at = seen?.get(head);
    if (at !== undefined) {
      lines[at] = line;
      continue;
    }
    seen?.set(head, lines.length);
    lines.push(line);
  }
  return lines.join("\n");
}

/** A growing byte buffer reused by every render (rendering is synchronous, so one is enough). */
class Writer {
  #buffer = Buffer.allocUnsafeSlow(1 << 16);
  #at = 0;

  #room(bytes: number): void {
    if (this.#at + bytes <= this.#buffer.length) return;
    const bigger = Buffer.allocUnsafeSlow(Math.max(this.#buffer.length * 2, this.#at + bytes));
    this.#buffer.copy(bigger, 0, 0, this.#at);
    this.#buffer = bigger;
  }

  /** Any text, as UTF-8 (at most 3 bytes per UTF-16 unit). */
  text(text: string): void {
    this.#room(text.length * 3);
    this.#at += this.#buffer.write(text, this.#at, "utf8");
  }

  /** Text known to be ASCII (metric names, numbers). */
  ascii(text: string): void {
    this.#room(text.length);
    this.#at += this.#buffer.write(text, this.#at, "latin1");
  }

  byte(code: number): void {
    this.#room(1);
    this.#buffer[this.#at++] = code;
  }

  /** Where the next byte goes: with `repeat`, what was written from here on can be written again. */
  get at(): number {
    return this.#at;
  }

  /** Writes again the bytes written earlier (since the last take) from `start` to `end`. */
  repeat(start: number, end: number): void {
    this.#room(end - start);
    this.#at += this.#buffer.copy(this.#buffer, this.#at, start, end);
  }

  /** What was written, as a view of the reused buffer (valid until the next write), and start afresh. */
  view(): Buffer {
    const view = this.#buffer.subarray(0, this.#at);
    this.#at = 0;
    return view;
  }

  /** What was written since the last take, as a buffer of its own. */
  take(): Buffer {
    const out = Buffer.allocUnsafeSlow(this.#at);
    this.#buffer.copy(out, 0, 0, this.#at);
    this.#at = 0;
    return out;
  }
}

const writer = new Writer();
const NEWLINE = 10;
const SPACE = 32;
const OPEN = 123;
const CLOSE = 125;
/** A name that needs no escaping and is written as it is. */
const ASCII_NAME = /^[\x21-\x5b\x5d-\x7e]*$/;

/** 2^21: a label set's text is far shorter than 2 MiB, and start * 2^21 + length stays an exact integer. */
const LENGTH_BITS = 2 ** 21;
const QUOTE = 34;

/**
 * `{a="x",b="y"}` for the sample's non-null labels, nothing when it has none. `prefixes` are
 * `a="`, `,b="`...: the comma is dropped before the first label written.
 */
function writeLabels(prefixes: readonly string[], values: ReadonlyArray<string | null>): void {
  let open = false;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value === null || value === undefined) continue;
    if (!open) {
      writer.byte(OPEN);
      open = true;
      writer.text(i === 0 ? prefixes[i]! : prefixes[i]!.slice(1));
    } else {
      writer.text(prefixes[i]!);
    }
    writer.text(escapeLabel(value));
    writer.byte(QUOTE);
  }
  if (open) writer.byte(CLOSE);
}

/**
 * Families as the UTF-8 text of a Prometheus exposition: no blank lines, a final newline, "" for none. Several families often share one label array per series (an account's
 * figures, a market's settings): its `{...}` text is made once and written for each of them.
 */
export function renderBytes(families: readonly Family[]): Buffer {
  write(families);
  return writer.take();
}

/** Like renderBytes, but `use` gets a view of the reused buffer, valid only during the call (no copy). */
export function renderWith<T>(families: readonly Family[], use: (text: Buffer) => T): T {
  write(families);
  return use(writer.view());
}

function write(families: readonly Family[]): void {
  // Where each label array's `{...}` was first written, per label-name list: start * 2^21 + length.
  const written = new Map<readonly string[], Map<ReadonlyArray<string | null>, number>>();
  for (const family of families) {
    if (family.capped === true || !ASCII_NAME.test(family.name)) {
      writer.text(renderFamily(family));
      writer.byte(NEWLINE);
      continue;
    }
    const name = family.name;
    writer.text(`# HELP ${name} ${escapeHelp(family.help)}\n# TYPE ${name} ${family.type}\n`);
    let seen = written.get(family.labelNames);
    if (seen === undefined) {
      seen = new Map();
      written.set(family.labelNames, seen);
    }
    const prefixes = family.labelNames.map((label, i) => `${i === 0 ? "" : ","}${label}="`);
    for (const sample of family.samples) {
      writer.ascii(name);
      if (prefixes.length > 0) {
        const at = seen.get(sample.labels);
        if (at === undefined) {
          const start = writer.at;
          writeLabels(prefixes, sample.labels);
          seen.set(sample.labels, start * LENGTH_BITS + (writer.at - start));
        } else {
          const start = Math.floor(at / LENGTH_BITS);
          writer.repeat(start, start + (at % LENGTH_BITS));
        }
      }
      writer.byte(SPACE);
      writer.ascii(formatValue(sample.value));
      writer.byte(NEWLINE);
    }
  }
}

/** Families as a Prometheus text exposition: no blank lines, a final newline. */
export function renderText(families: readonly Family[]): string {
  return families.length === 0 ? "\n" : renderBytes(families).toString("utf8");
}
