// The desk overview: every account on one screen sorted by risk, the firing alerts, top-N graphs and the exporter's health.
import { DashboardBuilder, DashboardCursorSync, RowBuilder } from "@grafana/grafana-foundation-sdk/dashboard";
import { alertList, stat, table, text, timeseries } from "./panels.js";
import {
  DATA_AGE_WARNING_SECONDS,
  LIQUIDATION_DISTANCE_CRITICAL,
  LIQUIDATION_DISTANCE_WARNING,
  MARGIN_RATIO_CRITICAL,
  MARGIN_RATIO_WARNING,
  pct,
  span,
  UNIT,
  liquidationMappings,
  liquidationThresholds,
  marginRatioMappings,
  marginRatioThresholds,
  okMappings,
  rising,
  statusMappings,
  marginUsageMappings,
} from "./thresholds.js";
import { datasourceVariable, multi } from "./variables.js";

export const OVERVIEW_UID = "trading-desk";

/** The accounts the `account` variable selects. */
const A = 'account=~"$account"';
/** Series scraped by two jobs at once (an HA pair) count once. */
const dedup = (expr: string): string => `max without (job, instance) (${expr})`;

/** The text and the descriptions of the panels fed by the exporter's own /metrics scrape. */
export const SELF_METRICS_NOTE =
  "Needs the exporter's own /metrics scraped: the `trading` job, or with `/probe` the `trading_exporter` job that keeps only `trading_exporter_*`, `process_*` and `nodejs_*` (docs/deployment.md).";

export function overviewDashboard(): DashboardBuilder {
  return new DashboardBuilder("Trading desk overview")
    .uid(OVERVIEW_UID)
    .description(
      "Every account of the desk on one screen, riskiest first; the firing alerts; the exporter's health. Open an account in the Trading account dashboard.",
    )
    .tags(["trading-exporter"])
    .time({ from: "now-1h", to: "now" })
    .refresh("30s")
    .timezone("browser")
    .tooltip(DashboardCursorSync.Crosshair)
    .withVariable(datasourceVariable())
    .withVariable(multi("account", "account", "trading_up", "Account"))
    .withRow(new RowBuilder("Desk"))
    .withPanel(
      stat(
        "Accounts fully read",
        "Accounts whose last scrape read account_info, orders_active and orders_history (trading_up = 1), of those configured.",
        { w: 4, h: 4 },
        { unit: UNIT.count },
        [
          { expr: `sum(max by (account) (trading_up{${A}}))`, legend: "read" },
          { expr: `count(max by (account) (trading_up{${A}}))`, legend: "configured" },
        ],
      ),
    )
    .withPanel(
      stat(
        "Worst margin ratio",
        `The highest maintenance margin / total margin of any selected account (recording rule account:trading_margin_ratio:max). Orange above ${pct(MARGIN_RATIO_WARNING)} (TradingMarginRatioHigh), red above ${pct(MARGIN_RATIO_CRITICAL)} (TradingMarginRatioCritical), the default thresholds (an account's own are on its dashboard); 100 % is liquidation; NO MARGIN LEFT is +Inf (total margin zero or negative with positions open).`,
        { w: 4, h: 4 },
        { unit: UNIT.ratio, thresholds: marginRatioThresholds(), mappings: marginRatioMappings(), decimals: 1 },
        [{ expr: `max(account:trading_margin_ratio:max{${A}})` }],
      ),
    )
    .withPanel(
      stat(
        "Nearest liquidation",
        `The smallest distance of any position to its liquidation price, from its average execution price (recording rule account:trading_position_liquidation_distance_ratio:min); BEYOND ENTRY when the liquidation price lies beyond the entry. Orange below ${pct(LIQUIDATION_DISTANCE_WARNING)} (TradingPositionApproachingLiquidation), red below ${pct(LIQUIDATION_DISTANCE_CRITICAL)} (TradingPositionNearLiquidation), the default thresholds.`,
        { w: 4, h: 4 },
        { unit: UNIT.ratio, thresholds: liquidationThresholds(), mappings: liquidationMappings(), decimals: 1 },
        [{ expr: `min(account:trading_position_liquidation_distance_ratio:min{${A}})` }],
      ),
    )
    .withPanel(
      stat(
        "Alerts firing",
        "Prometheus alerts firing now (ALERTS), TradingDataMissing (severity none, for inhibitions only) left out. The list beside names them.",
        { w: 4, h: 4 },
        { unit: UNIT.count, thresholds: rising(1) },
        [{ expr: 'count(ALERTS{alertstate="firing", severity!="none"}) or vector(0)' }],
      ),
    )
    .withPanel(
      stat(
        "Markets not tradable",
        "Markets of the venue whose status is not TRADABLE (CLOSE_ONLY, halted ...). The Markets held table says which, where a position is open.",
        { w: 4, h: 4 },
        { unit: UNIT.count, thresholds: rising(1) },
        [{ expr: 'count(max by (market_id) (trading_market_status{status!="TRADABLE"})) or vector(0)' }],
      ),
    )
    .withPanel(
      stat(
        "Oldest data",
        `Age of the oldest account collection on screen: now minus when the served collection started (trading_collection_timestamp_seconds). Orange above ${span(DATA_AGE_WARNING_SECONDS)}, the TradingCollectionStale threshold.`,
        { w: 4, h: 4 },
        { unit: UNIT.seconds, thresholds: rising(DATA_AGE_WARNING_SECONDS), decimals: 0 },
        [{ expr: `max(time() - max by (account) (trading_collection_timestamp_seconds{${A}}))` }],
      ),
    )
    .withPanel(
      alertList(
        "Firing alerts",
        "The alerts firing or pending in every alert source, the Prometheus rules of prometheus/rules/trading.rules.yml included; TradingDataMissing (severity none) left out.",
        { w: 8, h: 12 },
      ),
    )
    .withPanel(
      table(
        "Accounts by risk",
        "One row per account, riskiest first: read (trading_up), the worst margin ratio over its collaterals, the position nearest liquidation and its market, open positions and the age of its data. Thresholds are the alerts'.",
        { w: 16, h: 12 },
        [
          {
            name: "Margin ratio",
            expr: `account:trading_margin_ratio:max{${A}}`,
            unit: UNIT.ratio,
            thresholds: marginRatioThresholds(),
            mappings: marginRatioMappings(),
            decimals: 1,
            colored: true,
          },
          { name: "Read", expr: `max by (account) (trading_up{${A}})`, unit: UNIT.count, mappings: okMappings(), colored: true },
          {
            name: "Nearest liquidation",
            expr: `bottomk by (account) (1, min by (account, market_id) (trading_position_liquidation_distance_ratio{${A}}))`,
            unit: UNIT.ratio,
            thresholds: liquidationThresholds(),
            mappings: liquidationMappings(),
            decimals: 1,
            colored: true,
          },
          { name: "Positions", expr: `sum by (account) (${dedup(`trading_account_positions{${A}}`)})`, unit: UNIT.count },
          {
            name: "Data age",
            expr: `time() - max by (account) (trading_collection_timestamp_seconds{${A}})`,
            unit: UNIT.seconds,
            thresholds: rising(DATA_AGE_WARNING_SECONDS),
            decimals: 0,
            colored: true,
          },
        ],
        { joinOn: "account", labels: ["market_id"], sortBy: { column: "Margin ratio", desc: true } },
      ),
    )
    .withRow(new RowBuilder("Risk: the ten riskiest"))
    .withPanel(
      timeseries(
        "Margin ratio, 10 highest accounts",
        `The worst margin ratio of the ten riskiest accounts (account:trading_margin_ratio:max); dashed lines at the default thresholds, ${pct(MARGIN_RATIO_WARNING)} and ${pct(MARGIN_RATIO_CRITICAL)}. +Inf (no margin left) draws at the top of the scale and shows as NO MARGIN LEFT.`,
        { w: 12, h: 8 },
        { unit: UNIT.ratio, thresholds: marginRatioThresholds(), mappings: marginRatioMappings() },
        [{ expr: `topk(10, account:trading_margin_ratio:max{${A}})`, legend: "{{account}}" }],
      ),
    )
    .withPanel(
      timeseries(
        "Nearest liquidation, 10 closest positions",
        `The ten positions nearest their liquidation price: how far the price may move against each from its average execution price, as a fraction of it; below 0 the liquidation price lies beyond the entry. Dashed lines at the default thresholds, ${pct(LIQUIDATION_DISTANCE_WARNING)} and ${pct(LIQUIDATION_DISTANCE_CRITICAL)}.`,
        { w: 12, h: 8 },
        { unit: UNIT.ratio, thresholds: liquidationThresholds(), mappings: liquidationMappings() },
        [
          {
            expr: `bottomk(10, min by (account, market_id, direction) (trading_position_liquidation_distance_ratio{${A}}))`,
            legend: "{{account}} {{market_id}} {{direction}}",
          },
        ],
      ),
    )
    .withPanel(
      timeseries(
        "Margin in use, 10 highest",
        "(Total - available margin) / total margin of the ten account and collateral pairs using the most (trading_account_margin_usage_ratio). Above 100 % the available margin is negative: NONE LEFT. Absent while total margin is zero or negative.",
        { w: 12, h: 8 },
        { unit: UNIT.ratio, mappings: marginUsageMappings() },
        [{ expr: `topk(10, ${dedup(`trading_account_margin_usage_ratio{${A}}`)})`, legend: "{{account}} {{collateral_id}}" }],
      ),
    )
    .withPanel(
      timeseries(
        "Unrealized PnL, 10 largest losses",
        "Unrealized PnL of the ten account and collateral pairs with the largest loss, in units of the collateral named in the legend.",
        { w: 12, h: 8 },
        { unit: UNIT.money, decimals: 2 },
        [{ expr: `bottomk(10, ${dedup(`trading_account_unrealized_pnl{${A}}`)})`, legend: "{{account}} {{collateral_id}}" }],
      ),
    )
    .withRow(new RowBuilder("Collateral and markets"))
    .withPanel(
      table(
        "Margin by account and collateral",
        "Each account's figures per collateral asset, in units of that asset (the collateral column). The margin ratio is maintenance / total margin (detailed accounts only); margin in use is (total - available) / total.",
        { w: 24, h: 10 },
        [
          // First: every account and collateral pair has a balance, so its labels name every row.
          {
            name: "Balance",
            expr: `max by (key, account, collateral_id) (${keyed(`trading_account_collateral_balance{${A}}`)})`,
            unit: UNIT.money,
            decimals: 2,
          },
          {
            name: "Margin ratio",
            expr: `max by (key) (${keyed(`trading_account_margin_ratio{${A}}`)})`,
            unit: UNIT.ratio,
            thresholds: marginRatioThresholds(),
            mappings: marginRatioMappings(),
            decimals: 1,
            colored: true,
          },
          {
            name: "Margin in use",
            expr: `max by (key) (${keyed(`trading_account_margin_usage_ratio{${A}}`)})`,
            unit: UNIT.ratio,
            mappings: marginUsageMappings(),
            decimals: 1,
          },
          { name: "Total margin", expr: `max by (key) (${keyed(`trading_account_total_margin{${A}}`)})`, unit: UNIT.money, decimals: 2 },
          { name: "Available margin", expr: `max by (key) (${keyed(`trading_account_available_margin{${A}}`)})`, unit: UNIT.money, decimals: 2 },
          { name: "Maintenance margin", expr: `max by (key) (${keyed(`trading_account_maintenance_margin{${A}}`)})`, unit: UNIT.money, decimals: 2 },
          { name: "Unrealized PnL", expr: `max by (key) (${keyed(`trading_account_unrealized_pnl{${A}}`)})`, unit: UNIT.money, decimals: 2 },
          { name: "Total invested", expr: `max by (key) (${keyed(`trading_account_total_invested{${A}}`)})`, unit: UNIT.money, decimals: 2 },
        ],
        { joinOn: "key", labels: ["account", "collateral_id"], sortBy: { column: "Margin ratio", desc: true } },
      ).overrideByName("key", [{ id: "custom.hidden", value: true }]),
    )
    .withPanel(
      table(
        "Markets held",
        "Markets where a selected account holds a position: the market's status (green TRADABLE, its own colour otherwise), the positions held and the leverage the market allows now.",
        { w: 24, h: 8 },
        [
          {
            name: "Positions",
            expr: `max by (market_id, status) (trading_market_status) * on (market_id) group_left () count by (market_id) (${dedup(`trading_position_size{${A}}`)})`,
            unit: UNIT.count,
          },
          {
            name: "Allowed leverage",
            expr: `max by (market_id) (trading_market_currently_allowed_leverage) and on (market_id) count by (market_id) (${dedup(`trading_position_size{${A}}`)})`,
            unit: UNIT.leverage,
          },
        ],
        { joinOn: "market_id", labels: ["status"], sortBy: { column: "status", desc: false }, labelLooks: { status: { mappings: statusMappings() } } },
      ),
    )
    .withRow(new RowBuilder("Exporter health"))
    .withPanel(text("About these panels", { w: 24, h: 2 }, SELF_METRICS_NOTE))
    .withPanel(
      stat(
        "Exporter targets up",
        `Scrape targets of the trading jobs that answered, of all (Prometheus's up). ${SELF_METRICS_NOTE}`,
        { w: 4, h: 6 },
        { unit: UNIT.count },
        [
          { expr: 'sum by (job) (up{job=~"trading.*"})', legend: "{{job}} up" },
          { expr: 'count by (job) (up{job=~"trading.*"})', legend: "{{job}} targets" },
        ],
      ),
    )
    .withPanel(
      stat(
        "Configuration",
        `Whether the last (re)load of the configuration succeeded, and when one last did. ${SELF_METRICS_NOTE}`,
        { w: 4, h: 6 },
        { unit: UNIT.count, mappings: okMappings() },
        [{ expr: "min(trading_exporter_config_last_reload_successful)", legend: "last reload" }],
      ),
    )
    .withPanel(
      stat("Last successful reload", `When the configuration last loaded successfully. ${SELF_METRICS_NOTE}`, { w: 4, h: 6 }, { unit: UNIT.dateFromNow }, [
        { expr: "max(trading_exporter_config_last_reload_success_timestamp_seconds) * 1000" },
      ]),
    )
    .withPanel(
      stat(
        "Market list age",
        "Seconds since the exporter read the venue's market list (it is cached, TRADING_MARKETS_CACHE_SECONDS). On /metrics, or on the venue/markets /probe target.",
        { w: 4, h: 6 },
        { unit: UNIT.seconds, decimals: 0 },
        [{ expr: "max(trading_market_list_age_seconds)" }],
      ),
    )
    .withPanel(
      stat(
        "Refused in range",
        `Scrapes answered 503 (no answer slot of TRADING_MAX_IN_FLIGHT_SCRAPES freed in time), series left out over TRADING_MAX_SERIES, duplicate series dropped, orders counted under "other" over TRADING_MAX_ORDER_OUTCOME_SERIES, connections dropped (by reason: cap, idle, read_timeout, refused) or cut by the write timeout, requests rate-limited, and venue requests that waited for one of TRADING_VENUE_MAX_CONNECTIONS or for their turn in TRADING_VENUE_MAX_REQUESTS_PER_SECOND in the time range: all 0 normally. ${SELF_METRICS_NOTE}`,
        { w: 8, h: 6 },
        { unit: UNIT.count, thresholds: rising(1), decimals: 0 },
        [
          { expr: "sum(increase(trading_exporter_scrapes_rejected_total[$__range]))", legend: "scrapes rejected" },
          { expr: "sum(increase(trading_exporter_series_dropped_total[$__range]))", legend: "series over the cap" },
          { expr: "sum(increase(trading_exporter_series_duplicates_dropped_total[$__range]))", legend: "duplicate series" },
          { expr: "sum(increase(trading_exporter_order_outcomes_folded_total[$__range]))", legend: "orders folded into other" },
          { expr: "sum by (reason) (increase(trading_exporter_http_connections_dropped_total[$__range]))", legend: "connections dropped: {{reason}}" },
          { expr: "sum(increase(trading_exporter_http_write_timeouts_total[$__range]))", legend: "responses cut" },
          { expr: "sum(increase(trading_exporter_http_requests_rate_limited_total[$__range]))", legend: "requests rate-limited" },
          { expr: "sum(increase(trading_exporter_venue_connection_waits_total[$__range]))", legend: "venue requests waited for a connection" },
          { expr: "sum(increase(trading_exporter_venue_budget_waits_total[$__range]))", legend: "venue requests waited for the budget" },
        ],
      ),
    )
    .withPanel(
      timeseries(
        "Venue calls failed, by reason",
        `Failed endpoint calls per second by reason (timeout, rate_limited, auth, http_5xx ...), every reason shown from 0. ${SELF_METRICS_NOTE}`,
        { w: 8, h: 8 },
        { unit: UNIT.perSecond },
        [{ expr: "sum by (reason) (rate(trading_exporter_upstream_errors_total[$__rate_interval]))", legend: "{{reason}}" }],
      ),
    )
    .withPanel(
      timeseries(
        "Requests to the venue",
        `Requests per second the exporter sent to the venue, by endpoint and HTTP status (error when none came back), all of them, and the request budget they must stay under (TRADING_VENUE_MAX_REQUESTS_PER_SECOND). ${SELF_METRICS_NOTE}`,
        { w: 8, h: 8 },
        { unit: UNIT.perSecond },
        [
          { expr: "sum by (endpoint, code) (rate(trading_exporter_upstream_requests_total[$__rate_interval]))", legend: "{{endpoint}} {{code}}" },
          { expr: "sum(rate(trading_exporter_upstream_requests_total[$__rate_interval]))", legend: "all requests" },
          { expr: "max(trading_exporter_venue_request_budget_per_second)", legend: "request budget (0: none)" },
        ],
      ),
    )
    .withPanel(
      timeseries(
        "Endpoint duration, slowest account",
        "Seconds each venue endpoint took in the last collection, the slowest selected account's (and the market list's).",
        { w: 8, h: 8 },
        { unit: UNIT.seconds },
        [{ expr: `max by (endpoint) (trading_scrape_duration_seconds{account=~"$account|"})`, legend: "{{endpoint}}" }],
      ),
    )
    .withPanel(
      timeseries(
        "Venue answers the exporter corrected",
        `Per second: history pages that broke the paging contract, order times the venue left unset, and fields it sent missing or malformed (0 when none). ${SELF_METRICS_NOTE}`,
        { w: 12, h: 8 },
        { unit: UNIT.perSecond },
        [
          { expr: "sum by (kind) (rate(trading_exporter_history_paging_anomalies_total[$__rate_interval]))", legend: "paging {{kind}}" },
          { expr: "sum by (endpoint) (rate(trading_exporter_unset_fields_total[$__rate_interval]))", legend: "unset {{endpoint}}" },
          { expr: "sum(rate(trading_exporter_invalid_fields_total[$__rate_interval])) or vector(0)", legend: "invalid fields" },
        ],
      ),
    )
    .withPanel(
      table(
        "Exporter build",
        `Version, revision and Node.js of each exporter, and its open connections. ${SELF_METRICS_NOTE}`,
        { w: 12, h: 8 },
        [
          { name: "Build", expr: "max by (instance, version, revision, nodejs_version) (trading_exporter_build_info)", unit: UNIT.count },
          { name: "Connections open", expr: "max by (instance) (trading_exporter_http_connections_open)", unit: UNIT.count },
        ],
        { joinOn: "instance", labels: ["version", "revision", "nodejs_version"] },
      ),
    );
}

/** An account and collateral pair's series with one `key` label, so a table can join on a single field. */
function keyed(expr: string): string {
  return `label_join(${expr}, "key", "/", "account", "collateral_id")`;
}
