// The status page at /: per account its health, risks graded by its own thresholds, money and endpoints, for the person on call.

import { DEFAULT_THRESHOLDS, THRESHOLDS, type Thresholds } from "../../config/threshold-table.js";
import type { AccountStore, LastFailure } from "../../scrape/account-store.js";
import { formatValue } from "../../metrics/text-render.js";
import { VERSION } from "../../version.js";
import { escapeHtml } from "../../util/html-escape.js";
import { type AccountStatus, alertOf, type CollateralStatus, MONEY, type RiskState, type StatusData, statusData, TOTAL_MARGIN } from "./status-data.js";

export const STATUS_CSS_PATH = "/status.css";
/** Seconds between reloads: a page left open on a phone stays current without any script. */
export const REFRESH_SECONDS = 15;

/** A piece of HTML that is safe as it is: made only by the html`` tag, which escapes every value put in it unless it is itself Html. */
export class Html {
  constructor(readonly text: string) {}
}

type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

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

export interface StatusPageInput {
  data: StatusData;
  /** False before the first scrape: the page says so instead of collecting (a page view never calls the venue). */
  collected: boolean;
  version: string;
  uptimeSeconds: number;
  telemetryPath: string;
  /** Epoch ms the page is made at: ages are counted to it. */
  now: number;
}

const UNITS = ["d", "h", "min", "s"];

/** "3 d 4 h", "2 h 5 min", "4 min", "12 s": the largest unit and the next if not zero, enough to read at a glance. */
export function duration(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const counts = [Math.floor(total / 86_400), Math.floor(total / 3_600) % 24, Math.floor(total / 60) % 60, total % 60];
  const top = counts.findIndex((n, i) => n > 0 || i === 3);
  const first = `${counts[top]} ${UNITS[top]}`;
  return counts[top + 1] ? `${first} ${counts[top + 1]} ${UNITS[top + 1]}` : first;
}

/** A 0-1 ratio as the page prints it: a percentage with one decimal, a true minus sign; +Inf has no percentage. */
export function percent(ratio: number): string {
  if (ratio === Number.POSITIVE_INFINITY) return "∞";
  return `${(ratio * 100).toFixed(1).replace(/^-/, "−")} %`;
}

const GROUPED_2 = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const SIGNIFICANT_4 = new Intl.NumberFormat("en-US", { maximumSignificantDigits: 4 });

/** An amount as a person reads it: grouped by thousands, two decimals from 1,000 on, else four significant digits, a true minus. */
export function money(value: number): string {
  const text = (Math.abs(value) >= 1000 ? GROUPED_2 : SIGNIFICANT_4).format(Math.abs(value));
  return value < 0 ? `−${text}` : text;
}

function timeAt(epochMs: number, now: number): Html {
  const iso = new Date(epochMs).toISOString();
  return html`<time datetime="${iso}" title="${iso}">${iso.slice(11, 19)} UTC, ${duration((now - epochMs) / 1000)} ago</time>`;
}

function badge(state: RiskState | "up" | "down" | "none", text: string): Html {
  return html`<span class="badge ${state}">${text}</span>`;
}

const runbookBadge = (state: "warning" | "critical", alert: string): Html =>
  html`<a class="badge ${state}" href="runbooks/${alert}" title="Runbook: ${alert}">${state}</a>`;

/** A graded state's badge; a warning or critical one links to the runbook of the alert it stands for. */
const riskBadge = (state: RiskState, tier: Parameters<typeof alertOf>[0]): Html =>
  state === "ok" ? badge("ok", "ok") : runbookBadge(state, alertOf(tier, state));

/** The thresholds that grade a figure, the one it is past first: "critical above 50 %", "warning above 80 %". */
function limits(state: RiskState, side: "above" | "below", warning: number, critical: number): string {
  const limit = (ratio: number) => `${Number((ratio * 100).toFixed(2))} %`;
  const [w, c] = [`warning ${side} ${limit(warning)}`, `critical ${side} ${limit(critical)}`];
  return state === "critical" ? c : state === "warning" ? `${w}, ${c}` : w;
}

function absent(a: AccountStatus, c: CollateralStatus, lacking: string): string {
  if (a.up === undefined) return "not collected yet";
  if (!c.answered) {
    const failure = a.endpoints.find((e) => e.endpoint === "account_info")?.lastFailure;
    const http = failure?.httpStatus === undefined ? "" : ` — HTTP ${failure.httpStatus}`;
    return `not reported: account_info failed${failure === undefined ? "" : ` (${failure.reason}${http})`}`;
  }
  if (c.shape === "summary") return "not reported: the summary shape lists no positions";
  return `not reported: ${lacking}`;
}

/** Why a collateral has no margin ratio, which margin in use then stands in for. */
function noRatio(c: CollateralStatus): string {
  return c.shape === "summary"
    ? "no margin ratio: the venue reports how many positions, not the positions, so margin in use is watched instead"
    : "no margin ratio: a figure it needs was missing or invalid";
}

function amount(value: number, collateralId: string): Html {
  return html`<span title="${formatValue(value)} ${collateralId}">${money(value)}</span> <bdi class="unit">${collateralId}</bdi>`;
}

function trendState(a: AccountStatus, c: CollateralStatus, figure: "ratio" | "usage"): "ok" | "warning" {
  const seconds = c.toOne[figure];
  return seconds !== undefined && seconds < a.thresholds[`margin_${figure}_horizon_seconds`] ? "warning" : "ok";
}

/** The estimate at the figure's trend, a warning within the account's horizon as TradingMargin*Rising warns; else that horizon. */
function trendNote(a: AccountStatus, c: CollateralStatus, figure: "ratio" | "usage"): Html {
  const [alert, horizon] = [THRESHOLDS[`margin_${figure}_horizon_seconds`].alert, a.thresholds[`margin_${figure}_horizon_seconds`]];
  const end = figure === "ratio" ? "liquidation" : "no margin left for new orders";
  const seconds = c.toOne[figure];
  if (seconds === undefined) return html`<small>a rising trend warns <a href="runbooks/${alert}">${duration(horizon)} before ${end}</a></small>`;
  const state = trendState(a, c, figure);
  const flag = state === "ok" ? "" : html` ${runbookBadge("warning", alert)}`;
  return html`<small class="${state}">at the last 30 minutes' trend, ${end} in about ${duration(Math.round(seconds))}${flag} (warns within ${duration(horizon)})</small>`;
}

function pastAll(usage: number): Html {
  return usage > 1 ? html`<small>over 100 %: more than the whole total margin is bound, so the available margin is negative</small>` : html``;
}

function usageFigure(a: AccountStatus, c: CollateralStatus, usage: number): Html {
  return html`<span data-metric="trading_account_margin_usage_ratio" data-account="${a.name}" data-collateral="${c.collateralId}" data-value="${formatValue(usage)}">${percent(usage)}</span>`;
}

/** The margin ratio grades where it is known, margin in use beside it; without one, margin in use grades, by its own thresholds. */
function marginCell(a: AccountStatus, c: CollateralStatus): Html {
  const t = a.thresholds;
  if (c.marginRatio !== undefined && c.marginState !== undefined) {
    const words =
      c.marginRatio === Number.POSITIVE_INFINITY ? "no margin left" : limits(c.marginState, "above", t.margin_ratio_warning, t.margin_ratio_critical);
    const inUse =
      c.marginUsage === undefined ? "" : html`<small>margin ratio; ${usageFigure(a, c, c.marginUsage)} of the margin in use</small>${pastAll(c.marginUsage)}`;
    return html`<td class="${c.marginState}" data-metric="trading_account_margin_ratio" data-account="${a.name}" data-collateral="${c.collateralId}" data-value="${formatValue(c.marginRatio)}"><strong>${percent(c.marginRatio)}</strong> <span class="limit">— ${words}</span> ${riskBadge(c.marginState, "margin_ratio")}${inUse}${trendNote(a, c, "ratio")}</td>`;
  }
  if (c.noMarginLeft)
    return html`<td class="critical"><strong>no margin left</strong> <span class="limit">— total margin ${amount(c.money[TOTAL_MARGIN] ?? 0, c.collateralId)} with positions open</span> ${riskBadge("critical", "margin_usage")}<small>${noRatio(c)}</small></td>`;
  if (c.marginUsage === undefined || c.marginState === undefined) {
    const total = c.money[TOTAL_MARGIN];
    const text =
      c.answered && total !== undefined && total <= 0 && c.positions === 0
        ? "no margin and no open position"
        : absent(a, c, "a figure it needs was missing or invalid");
    return html`<td class="none">${text}</td>`;
  }
  const words = limits(c.marginState, "above", t.margin_usage_warning, t.margin_usage_critical);
  return html`<td class="${c.marginState}"><strong>${usageFigure(a, c, c.marginUsage)}</strong> of the margin in use <span class="limit">— ${words}</span> ${riskBadge(c.marginState, "margin_usage")}${pastAll(c.marginUsage)}<small>${noRatio(c)}</small>${trendNote(a, c, "usage")}</td>`;
}

/** "from entry 6.477 to liquidation 6.5688", each price as /metrics writes it. */
function prices(a: AccountStatus, c: CollateralStatus, n: NonNullable<CollateralStatus["nearest"]>): Html {
  const price = (family: string, value: number | undefined) =>
    value === undefined
      ? html`<span class="quiet">not reported</span>`
      : html`<span data-metric="${family}" data-account="${a.name}" data-collateral="${c.collateralId}" data-market="${n.marketId}" data-direction="${n.direction}" data-value="${formatValue(value)}">${formatValue(value)}</span>`;
  return html`from entry ${price("trading_position_avg_execution_price", n.entry)} to liquidation ${price("trading_position_liquidation_price", n.liquidation)}`;
}

function unpricedText(n: number, others: boolean): string {
  const positions = n === 1 ? "position" : "positions";
  return others ? `${n} other ${positions}: no liquidation price given` : `no liquidation price given (${n} ${positions})`;
}

const openPositions = (n: number): string => `${n} open ${n === 1 ? "position" : "positions"}`;

/** "2 open positions" under a listed collateral's distances (the summary shape's cell says its count itself). */
function positionCount(c: CollateralStatus): Html {
  if (c.positions === undefined || c.positions === 0 || c.shape === "summary") return html``;
  return html`<small>${openPositions(c.positions)}</small>`;
}

function nextPositions(a: AccountStatus, c: CollateralStatus): Html {
  const rows = c.next.map(
    (n) =>
      html`<small><bdi>${n.marketId}</bdi> <bdi>${n.direction}</bdi> ${percent(n.distance)} to liquidation ${n.state === "ok" ? "" : badge(n.state, n.state)}</small>`,
  );
  const probe = `probe?target=${encodeURIComponent(a.name)}&debug=true`;
  const more =
    c.notShown === 0
      ? ""
      : html`<small>${c.notShown} more with a liquidation price: <a href="${probe}">the debug probe</a> and the Trading account dashboard list them</small>`;
  return html`${rows}${more}`;
}

function noDistance(a: AccountStatus, c: CollateralStatus): string {
  if (c.answered && c.positions === 0) return "no open position";
  if (c.unpriced > 0) return unpricedText(c.unpriced, false);
  if (c.shape === "summary" && c.answered && c.positions !== undefined)
    return `${openPositions(c.positions)}, counted but not listed in the summary shape: no liquidation distance`;
  return absent(a, c, "no position has both prices and a direction of LONG or SHORT");
}

function nearestCell(a: AccountStatus, c: CollateralStatus): Html {
  const n = c.nearest;
  if (n === undefined) return html`<td class="none">${noDistance(a, c)}${positionCount(c)}</td>`;
  const t = a.thresholds;
  const words =
    n.distance < 0
      ? "liquidation price is beyond the entry: the position lives on unrealized gains"
      : limits(n.state, "below", t.liquidation_distance_warning, t.liquidation_distance_critical);
  const unpriced = c.unpriced > 0 ? html`<small>${unpricedText(c.unpriced, true)}</small>` : "";
  return html`<td class="${n.state}" data-metric="trading_position_liquidation_distance_ratio" data-account="${a.name}" data-collateral="${c.collateralId}" data-market="${n.marketId}" data-value="${formatValue(n.distance)}"><strong>${percent(n.distance)}</strong> <span class="limit">— ${words}</span> ${n.state === "ok" ? "" : riskBadge(n.state, "liquidation_distance")}<small><bdi>${n.marketId}</bdi> <bdi>${n.direction}</bdi>, ${prices(a, c, n)}</small>${nextPositions(a, c)}${unpriced}${positionCount(c)}</td>`;
}

function moneyRow(account: string, c: CollateralStatus): Html {
  if (!c.answered) return html``;
  const items = MONEY.map(([family, title], i) => {
    const value = c.money[i];
    const shown =
      value === undefined
        ? html`<dd class="quiet">not reported</dd>`
        : html`<dd data-metric="trading_account_${family}" data-account="${account}" data-collateral="${c.collateralId}" data-value="${formatValue(value)}">${amount(value, c.collateralId)}</dd>`;
    return html`<div><dt>${title}</dt>${shown}</div>`;
  });
  return html`<tr class="money"><td colspan="3"><dl>${items}</dl></td></tr>`;
}

function endpointRow(e: AccountStatus["endpoints"][number], account: string | undefined, now: number): Html {
  const failure = e.lastFailure;
  const status = failure?.httpStatus === undefined ? "" : ` — HTTP ${failure.httpStatus}`;
  const words = failure?.message === undefined ? "" : html`<small>${failure.message}</small>`;
  const last =
    failure === undefined ? html`<span class="quiet">none seen</span>` : html`<code>${failure.reason}</code>${status} ${timeAt(failure.at, now)}${words}`;
  return html`<tr><th scope="row">${e.endpoint}</th><td data-metric="trading_scrape_success" data-account="${account ?? ""}" data-endpoint="${e.endpoint}" data-value="${formatValue(e.success)}">${e.success === 1 ? badge("up", "ok") : badge("down", "failing")}</td><td>${last}</td></tr>`;
}

function endpointTable(rows: Html[]): Html {
  return html`<table class="endpoints"><thead><tr><th scope="col">Endpoint</th><th scope="col">Health</th><th scope="col">Last error</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function accountSection(a: AccountStatus, now: number): Html {
  const probe = `probe?target=${encodeURIComponent(a.name)}`;
  const state = a.up === undefined ? badge("none", "not collected") : a.up === 1 ? badge("up", "up") : badge("down", "down");
  // A down account's last collection failed in part: it is an attempt, not data of that age.
  const failed = a.endpoints.filter((e) => e.success !== 1).map((e) => e.endpoint);
  const age =
    a.collectedAtSeconds === undefined
      ? html`<p class="age">Not collected yet.</p>`
      : html`<p class="age" data-metric="trading_collection_timestamp_seconds" data-account="${a.name}" data-value="${formatValue(a.collectedAtSeconds)}">${
          a.up === 0 ? `Last collection failed (${failed.join(", ") || "no endpoint answered"}), started ` : "Data collected "
        }${timeAt(a.collectedAtSeconds * 1000, now)}</p>`;
  const endpoints =
    a.endpoints.length === 0 ? html`<p class="quiet">No endpoint read yet.</p>` : endpointTable(a.endpoints.map((e) => endpointRow(e, a.name, now)));
  return html`<section class="account" id="account-${a.name}">
<h2><span data-metric="trading_up" data-account="${a.name}" data-value="${a.up === undefined ? "" : formatValue(a.up)}">${state}</span> <bdi>${a.name}</bdi></h2>
${age}
<table class="risk"><thead><tr><th scope="col">Collateral</th><th scope="col">Margin</th><th scope="col">Nearest liquidation</th></tr></thead><tbody>${a.collaterals.map((c) => html`<tr><th scope="row"><bdi>${c.collateralId}</bdi></th>${marginCell(a, c)}${nearestCell(a, c)}</tr>${moneyRow(a.name, c)}`)}</tbody></table>
${endpoints}
<p class="links"><a href="${`${probe}&debug=true`}">Debug probe</a> <a href="${probe}">Probe</a></p>
</section>`;
}

const ATTENTION = ["critical", "down", "warning", "not collected", "ok"] as const;

function attention(a: AccountStatus): (typeof ATTENTION)[number] {
  const states = a.collaterals.flatMap((c) => [c.marginState, c.nearest?.state, trendState(a, c, c.marginRatio === undefined ? "usage" : "ratio")]);
  if (states.includes("critical")) return "critical";
  if (a.up === 0) return "down";
  if (states.includes("warning")) return "warning";
  return a.up === undefined ? "not collected" : "ok";
}

/** "3 accounts: 1 critical, 2 ok", the worst first, so a desk of many accounts reads at a glance. */
function summary(accounts: readonly AccountStatus[]): Html {
  const counts = ATTENTION.map((state) => [state, accounts.filter((a) => attention(a) === state).length] as const).filter(([, n]) => n > 0);
  const badges = counts.map(([state, n]) => html` ${badge(state === "not collected" ? "none" : state === "ok" ? "up" : state, `${n} ${state}`)}`);
  return html`<p class="summary">${accounts.length} account${accounts.length === 1 ? "" : "s"}:${badges}</p>`;
}

/** No inline style or script, so a strict Content-Security-Policy leaves it whole; relative links follow the route prefix. */
export function statusPage(input: StatusPageInput): string {
  const { data, now } = input;
  const telemetryPath = input.telemetryPath.slice(1);
  // Stable: accounts that need the same attention keep their configured order.
  const worstFirst = [...data.accounts].sort((a, b) => ATTENTION.indexOf(attention(a)) - ATTENTION.indexOf(attention(b)));
  const notice = input.collected
    ? ""
    : html`<p class="notice">No collection yet. This page shows what the last scrape collected and never calls the venue itself: it fills in after Prometheus scrapes <a href="${telemetryPath}">${input.telemetryPath}</a> or a probe (opening either collects once).</p>`;
  const markets =
    data.markets === undefined
      ? ""
      : html`<section class="account"><h2>Market list</h2>${endpointTable([endpointRow(data.markets, undefined, now)])}</section>`;
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta http-equiv="refresh" content="${REFRESH_SECONDS}">
<title>trading-exporter status</title><link rel="stylesheet" href="${STATUS_CSS_PATH.slice(1)}"></head>
<body><header><h1>trading-exporter</h1><p class="meta">Version ${input.version} · up ${duration(input.uptimeSeconds)} · page of ${new Date(now).toISOString().slice(11, 19)} UTC, refreshed every ${REFRESH_SECONDS} s</p></header>
<main>${notice}${summary(data.accounts)}${worstFirst.map((a) => accountSection(a, now))}${markets}</main>
<footer><nav><ul><li><a href="${telemetryPath}">Metrics</a></li><li><a href="exporter-metrics">Exporter&#39;s own metrics</a></li><li><a href="sd">Service discovery</a></li><li><a href="runbooks/">Runbooks</a></li><li><a href="-/healthy">Healthy</a></li><li><a href="-/ready">Ready</a></li></ul></nav></footer>
</body></html>
`;
  return page.text;
}

export interface PageSource {
  accountNames(): string[];
  account(name: string): { collateralIds: readonly string[]; thresholds: Thresholds } | undefined;
  readonly store: Pick<AccountStore, "lastServed" | "get">;
  readonly health: { lastFailure(endpoint: string, account: string | undefined): LastFailure | undefined };
}

/** The status page of the latest collection: it never collects, so opening it costs the venue nothing. */
export function statusPageHtml(exporter: PageSource, telemetryPath: string): string {
  const shown = exporter.accountNames().map((name) => {
    const account = exporter.account(name);
    return { name, collateralIds: account?.collateralIds ?? [], thresholds: account?.thresholds ?? DEFAULT_THRESHOLDS, trend: exporter.store.get(name)?.trend };
  });
  const result = exporter.store.lastServed(shown.map((a) => a.name));
  const data = statusData(result, shown, (endpoint, account) => exporter.health.lastFailure(endpoint, account));
  return statusPage({ data, collected: result !== undefined, version: VERSION, uptimeSeconds: process.uptime(), telemetryPath, now: Date.now() });
}
