// The exporter's YAML config file for a simulated desk: every account with its own key, against one venue URL.
import type { SimConfig } from "./config.js";
import { deskAccountKey, deskAccountName } from "./desk.js";

export type DeskShape = Pick<SimConfig, "accounts" | "apiKey" | "apiKeyHeader" | "collaterals">;

/** Double-quoted YAML scalars are JSON strings: no key or name can break the file, whatever it holds. */
const quoted = (text: string): string => JSON.stringify(text);

/**
 * The config an exporter needs to collect every account of the desk at `venueUrl`: one account per simulated
 * account, named `sim-0001`..., its collaterals the simulator's, its key inline (a simulator's keys guard nothing).
 */
export function exporterConfigYaml(desk: DeskShape, venueUrl: string): string {
  const collaterals = `[${desk.collaterals.map((c) => quoted(c.id)).join(", ")}]`;
  const lines = [
    `# trading-exporter config for the simulated venue at ${venueUrl}: ${desk.accounts} account(s).`,
    "venue:",
    `  base_url: ${quoted(venueUrl)}`,
    "accounts:",
  ];
  for (let i = 0; i < desk.accounts; i++) {
    lines.push(
      `  - name: ${quoted(deskAccountName(i, desk.accounts))}`,
      `    collateral_ids: ${collaterals}`,
      "    auth:",
      "      type: api_key",
      `      header_name: ${quoted(desk.apiKeyHeader)}`,
      `      key: ${quoted(deskAccountKey(desk.apiKey, i, desk.accounts))}`,
    );
  }
  return `${lines.join("\n")}\n`;
}
