// The runbooks: one Markdown file per alert, compiled into the exporter, served at /runbooks/<alertname>, and linked from every rule.

import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RUNBOOK_MARKDOWN } from "../src/http/pages/runbook-texts.js";
import { renderRunbook } from "../src/http/pages/runbook-pages.js";
import { dig, readRepoFile, readYaml, repoPath } from "./helpers/yaml-files.js";
import { startStack, type Stack } from "./helpers/stack.js";

const run = promisify(execFile);

interface Rule {
  alert?: string;
  record?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const rules = ((dig(readYaml("prometheus/rules/trading.rules.yml"), "groups") ?? []) as Array<{ rules: Rule[] }>).flatMap((g) => g.rules);
const alerts = rules.filter((r) => r.alert !== undefined);
const alertNames = alerts.map((r) => r.alert!).sort();
const markdownFiles = readdirSync(repoPath("runbooks")).filter((f) => f.endsWith(".md"));

describe("the runbook files and the rules", () => {
  it("give every alert one runbook, and every runbook an alert", () => {
    expect(alertNames.length).toBeGreaterThan(10);
    expect(markdownFiles.map((f) => f.slice(0, -3)).sort()).toEqual(alertNames);
    for (const name of alertNames) expect(RUNBOOK_MARKDOWN[name]?.split("\n")[0], `${name}.md starts with its name`).toBe(`# ${name}`);
  });

  it("are compiled into src/http/pages/runbook-texts.ts as they are now", async () => {
    await expect(run(process.execPath, [repoPath("scripts/generate-runbook-texts.mjs"), "--check"], { timeout: 20_000 })).resolves.toBeDefined();
  });

  it("link each alert to its own page under the one base set in trading:runbook_base_url:info", () => {
    const base = rules.filter((r) => r.record === "trading:runbook_base_url:info");
    expect(base).toHaveLength(1);
    const url = base[0]?.labels?.url ?? "";
    // The default is the exporter itself, on its default port.
    expect(url).toBe("http://localhost:9842/runbooks/");
    for (const alert of alerts) {
      expect(alert.annotations?.runbook_url, alert.alert).toBe(
        `{{ with query "trading:runbook_base_url:info" }}{{ . | first | label "url" }}{{ end }}${alert.alert}`,
      );
    }
    // No rule file, manifest or README still points at the README's old anchors.
    for (const file of ["prometheus/rules/trading.rules.yml", "deploy/kubernetes/prometheusrule.yaml", "prometheus/rules/trading.rules.test.yml"]) {
      expect(readRepoFile(file), file).not.toMatch(/README\.md#runbook-/);
    }
  });
});

describe("renderRunbook (markdown-it)", () => {
  it("shows raw HTML as text, escapes code and links, and refuses script URLs", () => {
    const html = renderRunbook(
      "# A <b>\n\nText <script>alert(1)</script> **bold** `<i>` [ok](https://example.com/x?a=1&b=2) [no](javascript:alert(1))\n\n" +
        '<div onclick="x()">raw</div>\n\n```\n<tag>\n```\n',
    );
    expect(html).toContain("<h1>A &lt;b&gt;</h1>");
    expect(html).toContain("Text &lt;script&gt;alert(1)&lt;/script&gt; <strong>bold</strong> <code>&lt;i&gt;</code>");
    expect(html).toContain('<a href="https://example.com/x?a=1&amp;b=2">ok</a>');
    expect(html).toContain("[no](javascript:alert(1))");
    expect(html).not.toContain('href="javascript');
    // A block of raw HTML is a paragraph of text, not an element.
    expect(html).toContain("<p>&lt;div onclick=&quot;x()&quot;&gt;raw&lt;/div&gt;</p>");
    expect(html).not.toMatch(/<(div|script|b|i|tag)[\s>]/);
    expect(html).toContain("<pre><code>&lt;tag&gt;\n</code></pre>");
  });

  it("renders tables with a header, lists, paragraphs and fenced code with its language", () => {
    const html = renderRunbook("| a | b |\n|---|---|\n| `x` | y |\n\n- one\n  more\n- two\n\nline one\nline two\n\n```promql\nup\n```\n");
    expect(html.replaceAll("\n", "")).toContain(
      "<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td><code>x</code></td><td>y</td></tr></tbody></table>",
    );
    expect(html.replaceAll("\n", "")).toContain("<ul><li>onemore</li><li>two</li></ul>");
    expect(html).toContain("<p>line one\nline two</p>");
    expect(html).toContain('<pre><code class="language-promql">up\n</code></pre>');
  });
});

describe("/runbooks on the exporter", () => {
  let stack: Stack | undefined;
  const s = (): Stack => {
    if (stack === undefined) throw new Error("the stack did not start");
    return stack;
  };
  beforeAll(async () => {
    stack = await startStack();
  }, 30_000);
  afterAll(async () => {
    await stack?.close();
  });

  it("serves a page about each alert, rendered from its Markdown", async () => {
    for (const name of alertNames) {
      const res = await s().get(`/runbooks/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html).toContain(`<title>${name}: trading-exporter runbook</title>`);
      expect(html).toContain(`<h1>${name}</h1>`);
      expect(html).toContain("<strong>What to do.</strong>");
      expect(html, name).not.toMatch(/<script|<iframe|href="(javascript|data):/i);
    }
    // The Markdown's table and fenced PromQL come out as a table with a header and a code block.
    const missing = (await (await s().get("/runbooks/TradingDataMissing")).text()).replaceAll("\n", "");
    expect(missing).toContain("<thead><tr><th>source</th><th>mutes</th></tr></thead>");
    expect(missing).toContain("<td><code>endpoint=&quot;markets&quot;</code></td>");
    const stuck = await (await s().get("/runbooks/TradingActiveOrderStuck")).text();
    expect(stuck).toContain('<pre><code class="language-promql">account:trading_active_orders_oldest_age_seconds:max\n');
  });

  it("lists every runbook at /runbooks/, and sends /runbooks there", async () => {
    const index = await (await s().get("/runbooks/")).text();
    for (const name of alertNames) expect(index).toContain(`<a href="${name}">${name}</a>`);
    const bare = await fetch(new URL("/runbooks", s().server.url), { redirect: "manual" });
    expect(bare.status).toBe(301);
    expect(bare.headers.get("location")).toBe("/runbooks/");
  });

  it("answers 404 for any other name, a path that climbs out, or another case", async () => {
    for (const path of [
      "/runbooks/NoSuchAlert",
      "/runbooks/..%2Fpackage.json",
      "/runbooks/../package.json",
      "/runbooks/tradingexporterdown",
      "/runbooks/TradingExporterDown/x",
    ]) {
      const res = await s().get(path);
      expect(res.status, path).toBe(404);
      expect(await res.text()).not.toContain("<html");
    }
    const post = await fetch(new URL("/runbooks/TradingExporterDown", s().server.url), { method: "POST" });
    expect(post.status).toBe(405);
  });
});
