// The venue's four read endpoints: their metric names and paths as the reference gives them.

export const ENDPOINTS = ["account_info", "orders_active", "orders_history", "markets"] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

export const PATHS: Record<Endpoint, string> = {
  account_info: "v1/private/account-info",
  orders_active: "v1/private/orders/realtime",
  orders_history: "v1/private/orders/history",
  markets: "v1/public/markets",
};

/** One request as a debug report shows it: no header values, no host credentials. */
export interface RequestTrace {
  endpoint: Endpoint;
  target: string;
  headerNames: string[];
  result: string;
  durationMs: number;
}
