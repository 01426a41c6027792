// The account detail: one account's margin, positions, orders and markets, for the collateral and markets selected.
import { DashboardBuilder, DashboardCursorSync, RowBuilder, type ValueMapping } from "@grafana/grafana-foundation-sdk/dashboard";
import type { ThresholdKey } from "../../src/config/threshold-table.js";
import { stat, stateTimeline, table, thresholdLines, timeseries } from "./panels.js";
import {
  accountThreshold,
  DATA_AGE_WARNING_SECONDS,
  MARGIN_RATIO_CRITICAL,
  MARGIN_RATIO_WARNING,
  MARGIN_USAGE_CRITICAL,
  MARGIN_USAGE_WARNING,
  ORDER_AGE_WARNING_SECONDS,
  SIZE_LIMIT_WARNING,
  UNIT,
  liquidationMappings,
  liquidationThresholds,
  marginRatioMappings,
  marginRatioThresholds,
  marginUsageMappings,
  marginUsageThresholds,
  okMappings,
  pct,
  rising,
  span,
  statusMappings,
  tradableMappings,
  truncatedMappings,
} from "./thresholds.js";
import { datasourceVariable, multi, single } from "./variables.js";

export const ACCOUNT_UID = "trading-account";

/** The account alone (orders and history carry no collateral). */
const A = 'account="$account"';
/** The account and collateral selected. */
const AC = 'account="$account", collateral_id="$collateral_id"';
/** The account's positions in the selected collateral and markets. */
const P = `${AC}, market_id=~"$market_id"`;
/** Series scraped by two jobs at once (an HA pair) count once. */
const dedup = (expr: string): string => `max without (job, instance) (${expr})`;
/** A position family, one series per market and direction. */
const position = (family: string): string => `max by (market_id, direction) (${family}{${P}})`;
/** The warning and critical lines of a graph, drawn from the account's threshold series. */
const WARNING_LINE = "warning threshold";
const CRITICAL_LINE = "critical threshold";
const LINES = [
  [WARNING_LINE, "orange"],
  [CRITICAL_LINE, "red"],
] as const;
/** A market family, one series per market, for the markets the account holds in the selected collateral. */
const market = (family: string): string => `max by (market_id) (${family}{market_id=~"$market_id"})`;

/** A ratio of the account and collateral over time, with the account's warning and critical lines. */
function tieredGraph(
  title: string,
  description: string,
  [family, legend]: readonly [string, string],
  [warning, critical]: readonly [ThresholdKey, ThresholdKey],
  mappings: ValueMapping[],
) {
  return thresholdLines(
    timeseries(title, description, { w: 8, h: 8 }, { unit: UNIT.ratio, mappings }, [
      { expr: `max(${family}{${AC}})`, legend },
      { expr: accountThreshold(warning, A), legend: WARNING_LINE },
      { expr: accountThreshold(critical, A), legend: CRITICAL_LINE },
    ]),
    LINES,
  );
}

export function accountDashboard(): DashboardBuilder {
  return new DashboardBuilder("Trading account")
    .uid(ACCOUNT_UID)
    .description("One account in detail: margin, positions, orders and the markets it holds, for the collateral selected.")
    .tags(["trading-exporter"])
    .time({ from: "now-1h", to: "now" })
    .refresh("30s")
    .timezone("browser")
    .tooltip(DashboardCursorSync.Crosshair)
    .withVariable(datasourceVariable())
    .withVariable(single("account", "account", "trading_up", "Account"))
    .withVariable(single("collateral_id", "collateral_id", 'trading_account_collateral_balance{account="$account"}', "Collateral"))
    .withVariable(multi("market_id", "market_id", 'trading_position_size{account="$account", collateral_id="$collateral_id"}', "Market (with a position)"))
    .withRow(new RowBuilder("$account in $collateral_id"))
    .withPanel(
      stat(
        "Read",
        "1 (OK) when the last scrape read account_info, orders_active and orders_history of the account (trading_up).",
        { w: 3, h: 4 },
        { unit: UNIT.count, mappings: okMappings() },
        [{ expr: `max(trading_up{${A}})` }],
      ),
    )
    .withPanel(
      stat(
        "Margin ratio",
        `Maintenance margin / total margin in this collateral: orange above ${pct(MARGIN_RATIO_WARNING)} (TradingMarginRatioHigh), red above ${pct(MARGIN_RATIO_CRITICAL)} (TradingMarginRatioCritical) at the default thresholds (the graph draws the account's own), 100 % is liquidation; NO MARGIN LEFT is +Inf. Detailed accounts only.`,
        { w: 4, h: 4 },
        { unit: UNIT.ratio, thresholds: marginRatioThresholds(), mappings: marginRatioMappings(), decimals: 1, noValue: "not reported" },
        [{ expr: `max(trading_account_margin_ratio{${AC}})` }],
      ),
    )
    .withPanel(
      stat(
        "Margin in use",
        `(Total - available margin) / total margin, bound by positions and orders (trading_account_margin_usage_ratio), in both account shapes: orange above ${pct(MARGIN_USAGE_WARNING)} (TradingMarginUsageHigh), red above ${pct(MARGIN_USAGE_CRITICAL)} (TradingMarginUsageCritical) at the default thresholds, which page only where no margin ratio is reported. NONE LEFT above 100 % (available margin negative); absent while total margin is zero or negative.`,
        { w: 4, h: 4 },
        { unit: UNIT.ratio, thresholds: marginUsageThresholds(), mappings: marginUsageMappings(), decimals: 1, noValue: "no margin" },
        [{ expr: `max(trading_account_margin_usage_ratio{${AC}})` }],
      ),
    )
    .withPanel(
      stat(
        "Margin in $collateral_id",
        "Total margin (balance plus unrealized PnL), available margin and unrealized PnL, in units of the selected collateral.",
        { w: 7, h: 4 },
        { unit: UNIT.money, decimals: 2 },
        [
          { expr: `max(trading_account_total_margin{${AC}})`, legend: "total" },
          { expr: `max(trading_account_available_margin{${AC}})`, legend: "available" },
          { expr: `max(trading_account_unrealized_pnl{${AC}})`, legend: "unrealized PnL" },
        ],
      ),
    )
    .withPanel(
      stat("Open positions", "Open positions in this collateral.", { w: 3, h: 4 }, { unit: UNIT.count }, [{ expr: `max(trading_account_positions{${AC}})` }]),
    )
    .withPanel(
      stat(
        "Data age",
        `Now minus when the served collection of the account started. Orange above ${span(DATA_AGE_WARNING_SECONDS)} (TradingCollectionStale).`,
        { w: 3, h: 4 },
        { unit: UNIT.seconds, thresholds: rising(DATA_AGE_WARNING_SECONDS), decimals: 0 },
        [{ expr: `time() - max(trading_collection_timestamp_seconds{${A}})` }],
      ),
    )
    .withPanel(
      tieredGraph(
        "Margin ratio",
        "Maintenance margin / total margin over time; dashed lines at the account's own warning and critical thresholds (trading_account_alert_threshold).",
        ["trading_account_margin_ratio", "margin ratio"],
        ["margin_ratio_warning", "margin_ratio_critical"],
        marginRatioMappings(),
      ),
    )
    .withPanel(
      tieredGraph(
        "Margin in use",
        "(Total - available margin) / total margin over time, the margin bound by positions and orders; dashed lines at the account's own margin_usage_warning and _critical (the alerts page on them only where no margin ratio is reported). Liquidation comes later, at the maintenance margin.",
        ["trading_account_margin_usage_ratio", "margin in use"],
        ["margin_usage_warning", "margin_usage_critical"],
        marginUsageMappings(),
      ),
    )
    .withPanel(
      timeseries(
        "Time to liquidation at the trend",
        "At the last 30 minutes' trend (recording rule account:trading_margin_ratio:deriv30m), the time until the margin ratio reaches 100 %, liquidation, and until margin in use reaches 100 %, no margin left for new orders; infinite, so not drawn, while steady or falling. Dashed lines: the account's own horizons, under which TradingMarginRatioRising and TradingMarginUsageRising warn (they read the lesser of the 30 and 10 minutes' trends).",
        { w: 8, h: 8 },
        { unit: UNIT.seconds },
        [
          {
            expr: `(1 - max(trading_account_margin_ratio{${AC}})) / clamp_min(max(account:trading_margin_ratio:deriv30m{${AC}}), 0)`,
            legend: "to liquidation (margin ratio)",
          },
          {
            expr: `(1 - max(trading_account_margin_usage_ratio{${AC}})) / clamp_min(max(account:trading_margin_usage_ratio:deriv30m{${AC}}), 0)`,
            legend: "to no margin left (margin in use)",
          },
          { expr: accountThreshold("margin_ratio_horizon_seconds", A), legend: WARNING_LINE },
          { expr: accountThreshold("margin_usage_horizon_seconds", A), legend: WARNING_LINE },
        ],
      ),
    )
    .withPanel(
      timeseries(
        "Margin in $collateral_id over time",
        "Balance, total, available and maintenance margin, in units of the selected collateral.",
        { w: 8, h: 8 },
        { unit: UNIT.money },
        [
          { expr: `max(trading_account_collateral_balance{${AC}})`, legend: "balance" },
          { expr: `max(trading_account_total_margin{${AC}})`, legend: "total margin" },
          { expr: `max(trading_account_available_margin{${AC}})`, legend: "available margin" },
          { expr: `max(trading_account_maintenance_margin{${AC}})`, legend: "maintenance margin" },
        ],
      ),
    )
    .withRow(new RowBuilder("Positions in $collateral_id"))
    .withPanel(
      table(
        "Positions",
        "Every position of the account in this collateral and the selected markets, nearest liquidation first. Amounts and prices in units of the collateral, sizes in the traded asset, leverage as x; allowed leverage is the market's now.",
        { w: 24, h: 9 },
        [
          { name: "Size", expr: position("trading_position_size"), unit: UNIT.size },
          {
            name: "Liquidation distance",
            expr: position("trading_position_liquidation_distance_ratio"),
            unit: UNIT.ratio,
            thresholds: liquidationThresholds(),
            mappings: liquidationMappings(),
            decimals: 1,
            colored: true,
          },
          { name: "Notional", expr: position("trading_position_notional"), unit: UNIT.money, decimals: 2 },
          { name: "Avg price", expr: position("trading_position_avg_execution_price"), unit: UNIT.price },
          { name: "Liquidation price", expr: position("trading_position_liquidation_price"), unit: UNIT.price },
          { name: "Leverage", expr: position("trading_position_leverage"), unit: UNIT.leverage, decimals: 2 },
          {
            name: "Allowed leverage",
            expr: `group by (market_id, direction) (trading_position_size{${P}}) * on (market_id) group_left () max by (market_id) (trading_market_currently_allowed_leverage)`,
            unit: UNIT.leverage,
            decimals: 2,
          },
          {
            name: "Size / limit",
            expr: position("trading_position_size_limit_ratio"),
            unit: UNIT.ratio,
            thresholds: rising(SIZE_LIMIT_WARNING),
            decimals: 1,
            colored: true,
          },
          { name: "Margin", expr: position("trading_position_margin"), unit: UNIT.money, decimals: 2 },
          { name: "Maintenance margin", expr: position("trading_position_maintenance_margin"), unit: UNIT.money, decimals: 2 },
          { name: "Implied initial margin", expr: position("trading_position_initial_margin_requirement"), unit: UNIT.money, decimals: 2 },
          { name: "Borrowed", expr: position("trading_position_borrowed"), unit: UNIT.money, decimals: 2 },
          { name: "Realized PnL", expr: position("trading_position_realized_pnl"), unit: UNIT.money, decimals: 2 },
        ],
        { joinOn: "market_id", labels: ["direction"], sortBy: { column: "Liquidation distance", desc: false } },
      ),
    )
    .withPanel(
      thresholdLines(
        timeseries(
          "Liquidation distance, 10 closest",
          "The account's ten positions nearest their liquidation price, from the average execution price (below 0: beyond the entry); dashed lines at the account's own warning and critical thresholds.",
          { w: 8, h: 8 },
          { unit: UNIT.ratio, mappings: liquidationMappings() },
          [
            { expr: `bottomk(10, ${position("trading_position_liquidation_distance_ratio")})`, legend: "{{market_id}} {{direction}}" },
            { expr: accountThreshold("liquidation_distance_warning", A), legend: WARNING_LINE },
            { expr: accountThreshold("liquidation_distance_critical", A), legend: CRITICAL_LINE },
          ],
        ),
        LINES,
      ),
    )
    .withPanel(
      timeseries(
        "Leverage vs allowed, 10 highest",
        "Leverage of the account's ten most leveraged positions, and what their markets allow now (TradingPositionLeverageAboveAllowed fires above it).",
        { w: 8, h: 8 },
        { unit: UNIT.leverage },
        [
          { expr: `topk(10, ${position("trading_position_leverage")})`, legend: "{{market_id}} {{direction}}" },
          {
            expr: `max by (market_id) (trading_market_currently_allowed_leverage) and on (market_id) topk(10, ${position("trading_position_leverage")})`,
            legend: "{{market_id}} allowed",
          },
        ],
      ),
    )
    .withPanel(
      thresholdLines(
        timeseries(
          "Size vs market limit, 10 highest",
          "|size| / the market's maxPositionSize of the ten largest positions against their limit; dashed line at the account's own warning threshold (TradingPositionNearSizeLimit).",
          { w: 8, h: 8 },
          { unit: UNIT.ratio },
          [
            { expr: `topk(10, ${position("trading_position_size_limit_ratio")})`, legend: "{{market_id}} {{direction}}" },
            { expr: accountThreshold("size_limit_warning", A), legend: WARNING_LINE },
          ],
        ),
        LINES,
      ),
    )
    .withRow(new RowBuilder("Orders of $account"))
    .withPanel(
      stat(
        "Oldest active order",
        `Age of the account's oldest active order (recording rule account:trading_active_orders_oldest_age_seconds:max). Orange above ${span(ORDER_AGE_WARNING_SECONDS)} at the default threshold (TradingActiveOrderStuck; the graph draws the account's own).`,
        { w: 4, h: 4 },
        { unit: UNIT.seconds, thresholds: rising(ORDER_AGE_WARNING_SECONDS), decimals: 0, noValue: "no active orders" },
        [{ expr: `max(account:trading_active_orders_oldest_age_seconds:max{${A}})` }],
      ),
    )
    .withPanel(
      stat(
        "Lists read",
        "Whether the active list filled its limit and whether the history read stopped before the venue's list ended (orders beyond may be missing); history orders fetched and order ids remembered.",
        { w: 12, h: 4 },
        { unit: UNIT.count, decimals: 0 },
        [
          { expr: `max(trading_active_orders_truncated{${A}})`, legend: "active list" },
          { expr: `max(trading_order_history_truncated{${A}})`, legend: "history" },
          { expr: `max(trading_order_history_fetched_orders{${A}})`, legend: "history orders" },
          { expr: `max(trading_order_ids_tracked{${A}})`, legend: "ids tracked" },
        ],
      )
        .overrideByName("active list", [{ id: "mappings", value: truncatedMappings() }])
        .overrideByName("history", [{ id: "mappings", value: truncatedMappings() }]),
    )
    .withPanel(
      stat("Last order created", "When the newest order of the fetched history was created.", { w: 8, h: 4 }, { unit: UNIT.dateFromNow }, [
        { expr: `max(trading_order_history_last_created_timestamp_seconds{${A}}) * 1000` },
      ]),
    )
    .withPanel(
      timeseries("Active orders, 10 busiest markets", "Active orders of the account in its ten markets with the most.", { w: 8, h: 8 }, { unit: UNIT.count }, [
        { expr: `topk(10, sum by (market_id) (${dedup(`trading_active_orders{${A}}`)}))`, legend: "{{market_id}}" },
      ]),
    )
    .withPanel(
      timeseries(
        "Active orders by side",
        "Active orders of the account by side: count, and summed quantity, filled and locked quantity (traded asset) and notional (collateral).",
        { w: 8, h: 8 },
        { unit: UNIT.count },
        [
          { expr: `sum by (side) (${dedup(`trading_active_orders{${A}}`)})`, legend: "{{side}} orders" },
          { expr: `sum by (side) (${dedup(`trading_active_orders_quantity{${A}}`)})`, legend: "{{side}} quantity" },
          { expr: `sum by (side) (${dedup(`trading_active_orders_quantity_filled{${A}}`)})`, legend: "{{side}} filled" },
          { expr: `sum by (side) (${dedup(`trading_active_orders_quantity_locked{${A}}`)})`, legend: "{{side}} locked" },
          { expr: `sum by (side) (${dedup(`trading_active_orders_notional{${A}}`)})`, legend: "{{side}} notional" },
        ],
      ),
    )
    .withPanel(
      timeseries(
        "Pending flags on active orders",
        "Active orders of the account with a pending expiration, cancellation or rejection.",
        { w: 8, h: 8 },
        { unit: UNIT.count },
        [{ expr: `sum by (flag) (${dedup(`trading_active_orders_pending{${A}}`)})`, legend: "{{flag}}" }],
      ),
    )
    .withPanel(
      thresholdLines(
        timeseries(
          "Oldest active order, 10 oldest markets",
          "Age of the oldest active order in the account's ten markets with the oldest; dashed line at the account's own threshold (TradingActiveOrderStuck).",
          { w: 8, h: 8 },
          { unit: UNIT.seconds },
          [
            { expr: `topk(10, time() - max by (market_id) (trading_active_orders_oldest_created_timestamp_seconds{${A}}))`, legend: "{{market_id}}" },
            { expr: accountThreshold("active_order_age_warning_seconds", A), legend: WARNING_LINE },
          ],
        ),
        LINES,
      ),
    )
    .withPanel(
      timeseries(
        "Order outcomes",
        "Orders per minute first seen with each status (trading_orders_total), and the history fetched this scrape by status.",
        { w: 8, h: 8 },
        { unit: UNIT.perMinute },
        [
          { expr: `sum by (status) (max without (job, instance) (rate(trading_orders_total{${A}}[$__rate_interval]))) * 60`, legend: "{{status}} /min" },
          { expr: `sum by (status) (${dedup(`trading_order_history_orders{${A}}`)})`, legend: "{{status}} in history" },
        ],
      ),
    )
    .withPanel(
      timeseries(
        "Rejections by code",
        "Orders per minute first seen with a rejection code (trading_orders_rejections_total), and the fetched history's orders carrying one, by code.",
        { w: 8, h: 8 },
        { unit: UNIT.perMinute },
        [
          { expr: `sum by (code) (max without (job, instance) (rate(trading_order_rejections_total{${A}}[$__rate_interval]))) * 60`, legend: "{{code}} /min" },
          { expr: `sum by (code) (${dedup(`trading_order_history_rejections{${A}}`)})`, legend: "{{code}} in history" },
        ],
      ),
    )
    .withRow(new RowBuilder("Markets of $account"))
    .withPanel(
      stateTimeline(
        "Market status",
        "Whether each market the account holds in this collateral is TRADABLE (green) or not (CLOSE_ONLY, halted ...: its own colour); the table beside names the status.",
        { w: 8, h: 9 },
        { unit: UNIT.count, mappings: tradableMappings() },
        [
          {
            // Only the markets held: the venue's whole list would be a row per market, hundreds on a large venue.
            expr: `(max by (market_id) (trading_market_status{market_id=~"$market_id", status="TRADABLE"}) or 0 * ${market("trading_market_status")}) and on (market_id) group by (market_id) (trading_position_size{${P}})`,
            legend: "{{market_id}}",
          },
        ],
      ),
    )
    .withPanel(
      table(
        "Market settings",
        "The settings of the markets the account holds in this collateral, as the venue lists them: status, leverage (x), margin fractions, sizes in the traded asset and prices in the collateral.",
        { w: 16, h: 9 },
        [
          {
            name: "Info",
            expr: `max by (market_id, name, asset_id, status) (trading_market_info{market_id=~"$market_id"} * on (market_id) group_left (status) max by (market_id, status) (trading_market_status))`,
            unit: UNIT.count,
          },
          { name: "Allowed leverage", expr: market("trading_market_currently_allowed_leverage"), unit: UNIT.leverage },
          { name: "Max leverage", expr: market("trading_market_max_leverage"), unit: UNIT.leverage },
          { name: "Min leverage", expr: market("trading_market_min_leverage"), unit: UNIT.leverage },
          { name: "Initial margin", expr: market("trading_market_initial_margin_ratio"), unit: UNIT.ratio, decimals: 2 },
          { name: "Incremental initial margin", expr: market("trading_market_incremental_initial_margin_ratio"), unit: UNIT.ratio, decimals: 2 },
          { name: "Maintenance margin", expr: market("trading_market_maintenance_margin_ratio"), unit: UNIT.ratio, decimals: 2 },
          { name: "Min order size", expr: market("trading_market_min_order_size"), unit: UNIT.size },
          { name: "Step size", expr: market("trading_market_step_size"), unit: UNIT.size },
          { name: "Step decimals", expr: market("trading_market_step_precision"), unit: UNIT.count },
          { name: "Tick size", expr: market("trading_market_tick_size"), unit: UNIT.price },
          { name: "Tick decimals", expr: market("trading_market_tick_precision"), unit: UNIT.count },
          { name: "Baseline position", expr: market("trading_market_baseline_position_size"), unit: UNIT.size },
          { name: "Incremental position", expr: market("trading_market_incremental_position_size"), unit: UNIT.size },
          { name: "Max position", expr: market("trading_market_max_position_size"), unit: UNIT.size },
        ],
        { joinOn: "market_id", labels: ["name", "asset_id", "status"], labelLooks: { status: { mappings: statusMappings() } } },
      ).overrideByName("Info", [{ id: "custom.hidden", value: true }]),
    )
    .withRow(new RowBuilder("Venue endpoints of $account"))
    .withPanel(
      stateTimeline(
        "Endpoint success",
        "Whether each venue endpoint of the account succeeded in each collection (trading_scrape_success).",
        { w: 12, h: 6 },
        { unit: UNIT.count, mappings: okMappings() },
        [{ expr: `min by (endpoint) (trading_scrape_success{${A}})`, legend: "{{endpoint}}" }],
      ),
    )
    .withPanel(
      timeseries(
        "Endpoint duration",
        "Seconds each venue endpoint of the account took (all collaterals in parallel, all history pages, retries).",
        { w: 12, h: 6 },
        { unit: UNIT.seconds },
        [{ expr: `max by (endpoint) (trading_scrape_duration_seconds{${A}})`, legend: "{{endpoint}}" }],
      ),
    );
}
