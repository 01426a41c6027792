// Small builders every dashboard shares: the data source, range and instant queries, and one helper per panel type.
import type * as cog from "@grafana/grafana-foundation-sdk/cog";
import {
  BigValueColorMode,
  BigValueGraphMode,
  BigValueTextMode,
  GraphThresholdsStyleConfigBuilder,
  GraphThresholdsStyleMode,
  LegendDisplayMode,
  LegendPlacement,
  TableCellDisplayMode,
  TableSortByFieldStateBuilder,
  VizLegendOptionsBuilder,
  ReduceDataOptionsBuilder,
  TableCellHeight,
} from "@grafana/grafana-foundation-sdk/common";
import {
  type DynamicConfigValue,
  PanelBuilder as GenericPanelBuilder,
  type Panel,
  type ThresholdsConfigBuilder,
  type ValueMapping,
} from "@grafana/grafana-foundation-sdk/dashboard";
import { DataqueryBuilder, PromQueryFormat } from "@grafana/grafana-foundation-sdk/prometheus";
import { PanelBuilder as StatBuilder } from "@grafana/grafana-foundation-sdk/stat";
import { PanelBuilder as StateTimelineBuilder } from "@grafana/grafana-foundation-sdk/statetimeline";
import { PanelBuilder as TableBuilder } from "@grafana/grafana-foundation-sdk/table";
import { PanelBuilder as TextBuilder, TextMode } from "@grafana/grafana-foundation-sdk/text";
import { PanelBuilder as TimeseriesBuilder } from "@grafana/grafana-foundation-sdk/timeseries";

/** Every panel reads the data source the `datasource` variable picks. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not a template string.
export const DATASOURCE = { type: "prometheus", uid: "${datasource}" };

/** How a value is shown: unit, and optionally thresholds, value mappings and decimals. */
export interface Look {
  unit: string;
  thresholds?: ThresholdsConfigBuilder;
  mappings?: ValueMapping[];
  decimals?: number;
  noValue?: string;
}

export interface Query {
  expr: string;
  legend?: string;
}

/** Panel geometry on Grafana's 24-column grid. */
export interface Size {
  w: number;
  h: number;
}

const refId = (i: number): string => String.fromCharCode(65 + i);

function rangeQuery(q: Query, i: number): DataqueryBuilder {
  const b = new DataqueryBuilder().refId(refId(i)).expr(q.expr).range();
  return q.legend === undefined ? b : b.legendFormat(q.legend);
}

function instantQuery(q: Query, i: number, format: PromQueryFormat): DataqueryBuilder {
  const b = new DataqueryBuilder().refId(refId(i)).expr(q.expr).instant().format(format);
  return q.legend === undefined ? b : b.legendFormat(q.legend);
}

type AnyPanel = StatBuilder | TableBuilder | TimeseriesBuilder | StateTimelineBuilder;

function look<T extends AnyPanel>(panel: T, l: Look): T {
  panel.unit(l.unit);
  if (l.thresholds !== undefined) panel.thresholds(l.thresholds);
  if (l.mappings !== undefined) panel.mappings(l.mappings);
  if (l.decimals !== undefined) panel.decimals(l.decimals);
  if (l.noValue !== undefined) panel.noValue(l.noValue);
  return panel;
}

/** A graph over time. Its queries must keep it to a few series (topk/bottomk or a small label set). */
export function timeseries(title: string, description: string, size: Size, l: Look, queries: Query[]): TimeseriesBuilder {
  const panel = new TimeseriesBuilder()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .span(size.w)
    .height(size.h)
    .targets(queries.map(rangeQuery))
    .legend(new VizLegendOptionsBuilder().displayMode(LegendDisplayMode.List).placement(LegendPlacement.Bottom).showLegend(true))
    .fillOpacity(0)
    .lineWidth(1);
  if (l.thresholds !== undefined) panel.thresholdsStyle(new GraphThresholdsStyleConfigBuilder().mode(GraphThresholdsStyleMode.Dashed));
  return look(panel, l);
}

/** Lines drawn from an account's threshold series, by legend: dashed, orange for a warning and red for a critical. */
export function thresholdLines(panel: TimeseriesBuilder, lines: ReadonlyArray<readonly [legend: string, color: "orange" | "red"]>): TimeseriesBuilder {
  for (const [legend, color] of lines)
    panel.overrideByName(legend, [
      { id: "color", value: { mode: "fixed", fixedColor: color } },
      { id: "custom.lineStyle", value: { fill: "dash", dash: [10, 10] } },
    ]);
  return panel;
}

/** One or a few big numbers, coloured by thresholds or mappings; instant queries. */
export function stat(title: string, description: string, size: Size, l: Look, queries: Query[]): StatBuilder {
  const panel = new StatBuilder()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .span(size.w)
    .height(size.h)
    .targets(queries.map((q, i) => instantQuery(q, i, PromQueryFormat.TimeSeries)))
    .colorMode(BigValueColorMode.Background)
    .graphMode(BigValueGraphMode.None)
    .textMode(queries.length > 1 || queries.some((q) => q.legend !== undefined) ? BigValueTextMode.ValueAndName : BigValueTextMode.Value)
    .reduceOptions(new ReduceDataOptionsBuilder().calcs(["lastNotNull"]).values(false));
  return look(panel, l);
}

/** A state over time per series: value mappings name and colour each state. */
export function stateTimeline(title: string, description: string, size: Size, l: Look, queries: Query[]): StateTimelineBuilder {
  const panel = new StateTimelineBuilder()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .span(size.w)
    .height(size.h)
    .targets(queries.map(rangeQuery))
    .mergeValues(true);
  return look(panel, l);
}

/** A table column: its name, its instant query (whose labels become the row's other columns) and how it shows. */
export interface Column extends Look {
  name: string;
  expr: string;
  /** Colour the cell by its thresholds or mappings. */
  colored?: boolean;
}

function columnOverrides(c: Column): DynamicConfigValue[] {
  const props: DynamicConfigValue[] = [{ id: "unit", value: c.unit }];
  if (c.thresholds !== undefined) props.push({ id: "thresholds", value: c.thresholds.build() });
  if (c.mappings !== undefined) props.push({ id: "mappings", value: c.mappings });
  if (c.decimals !== undefined) props.push({ id: "decimals", value: c.decimals });
  if (c.colored === true) props.push({ id: "custom.cellOptions", value: { type: TableCellDisplayMode.ColorBackground } });
  return props;
}

export interface TableOptions {
  /** The label the rows of every query share: rows are joined on it (outer join, so a query without data leaves its cells empty). */
  joinOn: string;
  /** Label columns to show as well, beside the join label. */
  labels?: string[];
  sortBy?: { column: string; desc: boolean };
  /** Colour of label columns by their value (e.g. a market's status). */
  labelLooks?: Record<string, { mappings: ValueMapping[] }>;
}

/**
 * A table with one row per value of `joinOn` and one column per query (instant, table format), joined by
 * Grafana's "join by field" and tidied by "organize" (the time columns hidden, the value columns named).
 */
export function table(title: string, description: string, size: Size, columns: Column[], options: TableOptions): TableBuilder {
  const excluded: Record<string, boolean> = { Time: true };
  columns.forEach((_c, i) => {
    excluded[`Time ${i + 1}`] = true;
  });
  const rename: Record<string, string> = {};
  columns.forEach((c, i) => {
    rename[columns.length > 1 ? `Value #${refId(i)}` : "Value"] = c.name;
  });
  const order: Record<string, number> = {};
  [options.joinOn, ...(options.labels ?? []), ...columns.map((_c, i) => (columns.length > 1 ? `Value #${refId(i)}` : "Value"))].forEach((name, i) => {
    order[name] = i;
  });
  const panel = new TableBuilder()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .span(size.w)
    .height(size.h)
    .targets(columns.map((c, i) => instantQuery({ expr: c.expr }, i, PromQueryFormat.Table)))
    .cellHeight(TableCellHeight.Sm)
    .unit("none")
    .withTransformation({ id: "joinByField", options: { byField: options.joinOn, mode: "outer" } })
    .withTransformation({ id: "organize", options: { excludeByName: excluded, renameByName: rename, indexByName: order, includeByName: {} } });
  for (const c of columns) panel.overrideByName(c.name, columnOverrides(c));
  for (const [label, l] of Object.entries(options.labelLooks ?? {})) {
    panel.overrideByName(label, [
      { id: "mappings", value: l.mappings },
      { id: "custom.cellOptions", value: { type: TableCellDisplayMode.ColorBackground } },
    ]);
  }
  if (options.sortBy !== undefined) panel.sortBy([new TableSortByFieldStateBuilder().displayName(options.sortBy.column).desc(options.sortBy.desc)]);
  return panel;
}

/** Markdown for the reader: what a group of panels needs or means. */
export function text(title: string, size: Size, markdown: string): TextBuilder {
  return new TextBuilder().title(title).span(size.w).height(size.h).mode(TextMode.Markdown).content(markdown);
}

/**
 * Grafana's alert list panel (the SDK has no builder for it): the firing and pending alerts of every
 * alert source, the Prometheus rules included, grouped as Grafana groups them.
 */
export function alertList(title: string, description: string, size: Size): cog.Builder<Panel> {
  return new GenericPanelBuilder()
    .type("alertlist")
    .title(title)
    .description(description)
    .span(size.w)
    .height(size.h)
    .options({
      viewMode: "list",
      groupMode: "default",
      groupBy: [],
      maxItems: 50,
      sortOrder: 3,
      dashboardAlerts: false,
      alertName: "",
      alertInstanceLabelFilter: '{severity!="none"}',
      stateFilter: { firing: true, pending: true, noData: false, normal: false, error: true },
      folder: null,
      showInstances: true,
    });
}
