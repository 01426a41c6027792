// The dashboards' variables: the data source and the label pickers, each query scoped by the variables before it.
import { DatasourceVariableBuilder, QueryVariableBuilder, VariableRefresh, VariableSort } from "@grafana/grafana-foundation-sdk/dashboard";
import { DATASOURCE } from "./panels.js";

export const datasourceVariable = (): DatasourceVariableBuilder => new DatasourceVariableBuilder("datasource").label("Data source").type("prometheus");

/** A variable filled from `label_values(selector, label)`, refreshed when the time range changes, sorted. */
function labelValues(name: string, label: string, selector: string, labelText: string): QueryVariableBuilder {
  const query = `label_values(${selector}, ${label})`;
  return new QueryVariableBuilder(name)
    .label(labelText)
    .datasource(DATASOURCE)
    .query(query)
    .definition(query)
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .sort(VariableSort.AlphabeticalAsc);
}

/** Several values, "All" by default (the whole desk). */
export function multi(name: string, label: string, selector: string, labelText: string): QueryVariableBuilder {
  return labelValues(name, label, selector, labelText)
    .multi(true)
    .includeAll(true)
    .current({ selected: true, text: ["All"], value: ["$__all"] });
}

/** One value; Grafana selects the first on load. */
export function single(name: string, label: string, selector: string, labelText: string): QueryVariableBuilder {
  return labelValues(name, label, selector, labelText).multi(false).includeAll(false);
}
