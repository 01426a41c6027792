// Prometheus HTTP service discovery (http_sd_configs) of the configured accounts, as /probe targets.

import { MARKET_TARGET } from "../config/sharding.js";

/** One target group of Prometheus's HTTP SD format. */
export interface TargetGroup {
  targets: string[];
  labels: Record<string, string>;
}

/**
 * Labels that make Prometheus scrape `/probe?target=NAME` at `reached`, `instance` the name, so a job needs no
 * relabelling; no `account` label: the exporter sets it on every series, and this one would clash.
 */
export function discoveryGroups(accounts: readonly string[], reached: URL, markets: boolean): TargetGroup[] {
  const group = (target: string, labels: Record<string, string>): TargetGroup => ({
    targets: [reached.host],
    labels: { __scheme__: reached.protocol.slice(0, -1), __metrics_path__: `${reached.pathname}probe`, __param_target: target, instance: target, ...labels },
  });
  const groups = accounts.map((name) => group(name, { __meta_trading_account: name, __meta_trading_target_kind: "account" }));
  if (markets) groups.push(group(MARKET_TARGET, { __meta_trading_target_kind: "markets" }));
  return groups;
}

/** host:port as a client can reach it: the Host header when it is one, else the socket's local address. */
export function reachedAddress(host: string | undefined, localAddress: string | undefined, localPort: number | undefined): string {
  if (host !== undefined && /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(host)) return host;
  const ip = localAddress ?? "127.0.0.1";
  const shown = ip.includes(":") ? `[${ip}]` : ip;
  return `${shown}:${localPort ?? 9842}`;
}
