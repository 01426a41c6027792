// Per-endpoint counters of venue requests received, faulted or not.
import { SIM_ENDPOINTS, type SimEndpoint, type SimStats } from "./types.js";

function zeroCounts(): Record<SimEndpoint, number> {
  return Object.fromEntries(SIM_ENDPOINTS.map((e) => [e, 0])) as Record<SimEndpoint, number>;
}

export class RequestStats {
  private counts = zeroCounts();

  count(endpoint: SimEndpoint): void {
    this.counts[endpoint] += 1;
  }

  snapshot(): SimStats {
    return { requests: { ...this.counts } };
  }

  reset(): void {
    this.counts = zeroCounts();
  }
}
