// Reading the user's Markdown as GitHub shows it: heading anchors, relative links, and the command blocks marked runnable.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const REPO_ROOT = new URL("../../", import.meta.url).pathname;

/** The user's Markdown, relative to the repository: README.md, CONTRIBUTING.md and every docs/*.md. */
export function userDocs(): string[] {
  const docs = readdirSync(join(REPO_ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`);
  return ["README.md", "CONTRIBUTING.md", ...docs];
}

export const readDoc = (file: string): string => readFileSync(join(REPO_ROOT, file), "utf8");

/** A line of a Markdown text with whether it sits inside a fenced code block (fences themselves count as inside). */
interface Line {
  text: string;
  lineNo: number;
  inFence: boolean;
}

function lines(markdown: string): Line[] {
  let inFence = false;
  return markdown.split("\n").map((text, i) => {
    const fence = /^\s*```/.test(text);
    const line = { text, lineNo: i + 1, inFence: inFence || fence };
    if (fence) inFence = !inFence;
    return line;
  });
}

/** GitHub's anchor for a heading: lowercase, punctuation removed (not `-` or `_`), each space a `-`. */
export function githubSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a text's headings; a repeated heading gets `-1`, `-2`, ... as on GitHub. */
export function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { text, inFence } of lines(markdown)) {
    const m = inFence ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(text);
    if (!m) continue;
    const base = githubSlug(m[1]!.replace(/`/g, ""));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

export interface Link {
  target: string;
  lineNo: number;
}

/** Links of a text outside code: `[text](target)`, with inline code spans left out. */
export function relativeLinks(markdown: string): Link[] {
  const links: Link[] = [];
  for (const { text, lineNo, inFence } of lines(markdown)) {
    if (inFence) continue;
    const prose = text.replace(/`[^`]*`/g, "``");
    for (const m of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push({ target, lineNo });
    }
  }
  return links;
}

export interface RunnableBlock {
  file: string;
  lineNo: number;
  /** `serves`: the commands start a server that runs until stopped; else they exit by themselves. */
  serves: boolean;
  script: string;
}

const MARKER = /^<!-- runs(?:: (serves))? -->$/;

/** The code blocks marked `<!-- runs -->` (or `<!-- runs: serves -->`) on the line before their fence.
 *  In a `console` block only the `$ ` lines are commands. */
export function runnableBlocks(file: string, markdown: string): RunnableBlock[] {
  const all = markdown.split("\n");
  const blocks: RunnableBlock[] = [];
  all.forEach((text, i) => {
    const marker = MARKER.exec(text.trim());
    if (!marker) return;
    const fence = /^```(sh|bash|console)$/.exec(all[i + 1]?.trim() ?? "");
    if (!fence) throw new Error(`${file}:${i + 1}: <!-- runs --> must stand right above a sh, bash or console fence`);
    const end = all.findIndex((l, j) => j > i + 1 && l.trim() === "```");
    if (end < 0) throw new Error(`${file}:${i + 2}: the runnable block is never closed`);
    let body = all.slice(i + 2, end);
    if (fence[1] === "console") body = body.filter((l) => l.startsWith("$ ")).map((l) => l.slice(2));
    blocks.push({ file, lineNo: i + 2, serves: marker[1] === "serves", script: body.join("\n") });
  });
  return blocks;
}

export interface WalkthroughBlock {
  lineNo: number;
  /** `serves`: a server left running; `receives`: asked until it shows the notification; else a command that exits. */
  kind: "serves" | "receives" | "runs";
  script: string;
}

/** The steps of a walkthrough, in order: the sh blocks marked `<!-- walkthrough -->`, `<!-- walkthrough: serves -->` or
 *  `<!-- walkthrough: receives -->` on the line before their fence. */
export function walkthroughBlocks(file: string, markdown: string): WalkthroughBlock[] {
  const all = markdown.split("\n");
  const blocks: WalkthroughBlock[] = [];
  all.forEach((text, i) => {
    const marker = /^<!-- walkthrough(?:: (serves|receives))? -->$/.exec(text.trim());
    if (!marker) return;
    if (all[i + 1]?.trim() !== "```sh") throw new Error(`${file}:${i + 1}: <!-- walkthrough --> must stand right above a sh fence`);
    const end = all.findIndex((l, j) => j > i + 1 && l.trim() === "```");
    if (end < 0) throw new Error(`${file}:${i + 2}: the walkthrough block is never closed`);
    blocks.push({ lineNo: i + 2, kind: (marker[1] as "serves" | "receives" | undefined) ?? "runs", script: all.slice(i + 2, end).join("\n") });
  });
  return blocks;
}

export interface OutputBlock {
  lineNo: number;
  /** What the `<!-- output: ... -->` marker says produces it. */
  source: string;
  /** The fence's info string: `console` (commands as `$ ` lines, each followed by its output) or empty (output alone). */
  lang: string;
  lines: string[];
}

/** The code blocks marked `<!-- output: SOURCE -->` on the line before their fence: shown output that a test keeps true. */
export function outputBlocks(file: string, markdown: string): OutputBlock[] {
  const all = markdown.split("\n");
  const blocks: OutputBlock[] = [];
  all.forEach((text, i) => {
    const marker = /^<!-- output: (.+) -->$/.exec(text.trim());
    if (!marker) return;
    const fence = /^```(\w*)$/.exec(all[i + 1]?.trim() ?? "");
    if (!fence) throw new Error(`${file}:${i + 1}: <!-- output: --> must stand right above a fence`);
    const end = all.findIndex((l, j) => j > i + 1 && l.trim() === "```");
    if (end < 0) throw new Error(`${file}:${i + 2}: the output block is never closed`);
    blocks.push({ lineNo: i + 2, source: marker[1]!, lang: fence[1]!, lines: all.slice(i + 2, end) });
  });
  return blocks;
}

/** The inline code spans of the paragraphs that begin with `lead` (a paragraph ends at a blank line). */
export function codeSpansAfter(markdown: string, lead: string): string[] {
  return markdown
    .split(/\n\s*\n/)
    .filter((p) => p.trimStart().startsWith(lead))
    .flatMap((p) => [...p.replace(/\n/g, " ").matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
}
