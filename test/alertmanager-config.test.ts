// The shipped Alertmanager configuration: amtool accepts it and its commented examples, routes every alert by severity, and its templates read in both states.

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ALERTMANAGER_CONFIG, ALERTMANAGER_DIR, amtool, renderTemplate, routeOf } from "./helpers/amtool.js";
import { dig, readYaml } from "./helpers/yaml-files.js";

interface Rule {
  alert?: string;
  expr?: string;
  labels?: Record<string, string>;
}

const config = readYaml("prometheus/alertmanager/alertmanager.yml");
const alerts = ((dig(readYaml("prometheus/rules/trading.rules.yml"), "groups") ?? []) as Array<{ rules: Rule[] }>)
  .flatMap((g) => g.rules)
  .filter((r) => r.alert !== undefined);
const work = mkdtempSync(join(tmpdir(), "te-alertmanager-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The shipped file with its commented receiver and global examples uncommented, as a user would. */
function withExamples(text: string): string {
  const lines = text.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const global = /^(\s*)# ((?:smtp_\w+|slack_api_url_file):.*)$/.exec(line);
    if (global) {
      out.push(`${global[1]}${global[2]}`);
      continue;
    }
    const block = /^(\s+)# ([a-z_]+_configs:)$/.exec(line);
    if (!block) {
      out.push(line);
      continue;
    }
    const indent = block[1]!;
    out.push(`${indent}${block[2]}`);
    while (i + 1 < lines.length && lines[i + 1]!.startsWith(`${indent}#   `)) out.push(indent + lines[++i]!.slice(indent.length + 2));
  }
  return out.join("\n");
}

describe("prometheus/alertmanager/alertmanager.yml", () => {
  it("passes amtool check-config with its templates", () => {
    const result = amtool(["check-config", "alertmanager.yml"]);
    expect(result.status, result.output).toBe(0);
    expect(result.output).toContain("7 inhibit rules");
    expect(result.output).toContain("3 receivers");
    expect(result.output).toContain("1 templates");
    expect(result.output).toMatch(/SUCCESS\s*$/);
  });

  it("passes amtool check-config with the PagerDuty, Slack and e-mail examples uncommented", () => {
    const text = withExamples(readFileSync(ALERTMANAGER_CONFIG, "utf8"));
    for (const kind of ["pagerduty_configs:", "slack_configs:", "email_configs:", "smtp_smarthost:"]) expect(text).toMatch(new RegExp(`^\\s+${kind}`, "m"));
    cpSync(join(ALERTMANAGER_DIR, "templates"), join(work, "templates"), { recursive: true });
    writeFileSync(join(work, "examples.yml"), text);
    const result = amtool(["check-config", "examples.yml"], work);
    expect(result.status, result.output).toBe(0);
    // A misspelt field fails: amtool is strict, so the pass above means every example field is real.
    writeFileSync(join(work, "bad.yml"), text.replace("routing_key_file:", "routing_key_fil:"));
    expect(amtool(["check-config", "bad.yml"], work).status).not.toBe(0);
  });

  it("routes every shipped alert by its severity: critical pages, warning tickets, none nowhere", () => {
    const expected: Record<string, string> = { critical: "trading-critical", warning: "trading-warning", none: "trading-null" };
    expect(alerts.length).toBeGreaterThan(10);
    for (const alert of alerts) {
      const severity = alert.labels?.severity ?? "";
      expect(Object.keys(expected), `${alert.alert} severity`).toContain(severity);
      expect(routeOf(ALERTMANAGER_CONFIG, { alertname: alert.alert!, severity, account: "a", collateral_id: "USDC" }), alert.alert).toBe(expected[severity]);
    }
    expect((dig(config, "receivers") as Array<{ name: string; webhook_configs?: unknown[] }>).map((r) => [r.name, (r.webhook_configs ?? []).length])).toEqual([
      ["trading-null", 0],
      ["trading-critical", 1],
      ["trading-warning", 1],
    ]);
  });

  it("mutes, while account_info fails or is missing, every alert computed from its series", () => {
    const rule = (dig(config, "inhibit_rules") as Array<Record<string, string[]>>).find((r) => r.source_matchers?.includes('endpoint="account_info"'));
    const target = /^alertname=~"(.*)"$/.exec(rule?.target_matchers?.find((m) => m.startsWith("alertname")) ?? "")?.[1];
    expect(target).toBeDefined();
    // Balances, margins and positions are account_info's; the threshold series are the exporter's own.
    const fromAccountInfo = alerts.filter((a) => /\btrading_(account|position)_(?!alert_threshold)/.test(a.expr ?? "")).map((a) => a.alert!);
    expect(fromAccountInfo).toEqual(expect.arrayContaining(["TradingMarginRatioHigh", "TradingMarginUsageHigh", "TradingMarginUsageCritical"]));
    for (const name of fromAccountInfo) expect(new RegExp(`^(?:${target})$`).test(name), name).toBe(true);
  });

  it("groups by account and collateral, and names only alerts the rules define", () => {
    expect(dig(config, "route", "group_by")).toEqual(["account", "collateral_id"]);
    const names = new Set(alerts.map((a) => a.alert!));
    const matchers = (dig(config, "inhibit_rules") as Array<Record<string, string[]>>).flatMap((r) => [
      ...(r.source_matchers ?? []),
      ...(r.target_matchers ?? []),
    ]);
    // Every alternative of every alertname matcher (=, =~; != and !~ exclude) must select at least one rule's alert.
    const alternatives = matchers.flatMap((m) => {
      const parsed = /^alertname(=~?)"(.*)"$/.exec(m);
      return parsed ? parsed[2]!.split("|") : [];
    });
    expect(alternatives.length).toBeGreaterThan(10);
    for (const alt of alternatives)
      expect(
        [...names].some((n) => new RegExp(`^(?:${alt})$`).test(n)),
        `${alt} in an inhibit rule`,
      ).toBe(true);
  });
});

describe("templates/trading.tmpl", () => {
  const alert = {
    labels: {
      alertname: "TradingMarginRatioCritical",
      severity: "critical",
      account: "sim",
      collateral_id: "USDC",
      instance: "127.0.0.1:9842",
      job: "trading",
    },
    annotations: {
      summary: "Account sim (USDC) is close to liquidation.",
      description: "Maintenance margin of account sim (USDC) is 94.77% of its total margin (critical above 90%, liquidation at 100%).",
      runbook_url: "http://localhost:9842/runbooks/TradingMarginRatioCritical",
    },
    startsAt: "2026-11-22T22:00:00.1Z",
    generatorURL: "",
    fingerprint: "0",
  };
  const data = (status: "firing" | "resolved") => ({
    receiver: "trading-critical",
    status,
    alerts: [{ ...alert, status, endsAt: status === "resolved" ? "2026-11-22T22:01:24.2Z" : "0001-01-01T00:00:00Z" }],
    groupLabels: { account: "sim", collateral_id: "USDC" },
    commonLabels: alert.labels,
    commonAnnotations: alert.annotations,
    externalURL: "http://alertmanager:9093",
  });
  const render = (status: "firing" | "resolved") => {
    const file = join(work, `${status}.json`);
    writeFileSync(file, JSON.stringify(data(status)));
    return renderTemplate('{{ template "trading.title" . }}\n{{ template "trading.text" . }}|{{ template "trading.color" . }}', file);
  };

  it("a firing notification carries the summary, the description and the runbook link", () => {
    const text = render("firing");
    expect(text.split("\n")[0]).toBe("[FIRING:1] account sim (USDC): TradingMarginRatioCritical");
    expect(text).toContain(alert.annotations.summary);
    expect(text).toContain(alert.annotations.description);
    expect(text).toContain(`Runbook: ${alert.annotations.runbook_url}`);
    expect(text).toContain("|danger");
  });

  it("a resolved notification says it resolved, when and after how long, and not the firing sentence", () => {
    const text = render("resolved");
    expect(text.split("\n")[0]).toBe("[RESOLVED] account sim (USDC): TradingMarginRatioCritical");
    expect(text).toContain("No longer firing for account sim (USDC): resolved at 22:01:24 UTC after 1m24s.");
    expect(text).not.toContain(alert.annotations.summary);
    expect(text).not.toContain("94.77%");
    expect(text).toContain("|good");
  });
});
