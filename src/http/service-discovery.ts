// Prometheus HTTP service discovery (http_sd_configs) of the configured accounts, as /probe targets.

import { MARKET_TARGET } from "../config/sharding.js";

/** One target group of Prometheus's HTTP SD format. */
export interface TargetGroup {
  targets: string[];
  labels: Record<string, string>;
}

/**
 * One group per account: the target is this exporter (`reached`: its external URL, or where the client
 * reached it, with the route prefix), and the labels make Prometheus scrape `/probe?target=NAME` there, with
 * that URL's scheme and path, and `instance` set to the account name, so a
 * scrape job needs no relabelling and account names are written once, in the exporter's config.
 * The account is also a `__meta_trading_account` label, for relabelling; `account` itself is set by
 * the exporter on every series, so it is not repeated here (it would clash).
 * With `markets` (the shard that owns it), one more group: MARKET_TARGET, the venue's public market
 * list, which no account's answer carries. `__meta_trading_target_kind` tells the two kinds apart.
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
