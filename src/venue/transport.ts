// The connection pool to the venue: keep-alive, bounded connections, closed on shutdown.

import { createRequire } from "node:module";
import type { Agent as AgentType } from "undici";

// Only the Agent and its request API: the package's index loads every feature (fetch, websockets,
// caches, mocks) and costs about 10 MB more memory than the two pieces the exporter uses.
const load = createRequire(import.meta.url);
const Agent = load("undici/lib/dispatcher/agent.js") as typeof AgentType;
const request = load("undici/lib/api/api-request.js") as AgentType["request"];

/** undici's request() bound to a dispatcher, as the package's index would attach it. */
export type PoolRequest = (options: Parameters<AgentType["request"]>[0]) => ReturnType<AgentType["request"]>;

export class Transport {
  readonly dispatcher: AgentType;
  readonly request: PoolRequest;

  constructor() {
    this.dispatcher = new Agent({
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 60_000,
      // A burst of scrapes shares one collection per account, so few connections per origin suffice.
      connections: 16,
      connect: { timeout: 10_000 },
    });
    this.request = (options) => request.call(this.dispatcher, options) as ReturnType<AgentType["request"]>;
  }

  /** Closes idle connections and waits for busy ones, up to `graceMs`; then destroys what is left. */
  async close(graceMs = 5_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), graceMs);
      timer.unref();
    });
    const closed = await Promise.race([this.dispatcher.close().then(() => "closed" as const), late]);
    clearTimeout(timer);
    if (closed === "late") await this.dispatcher.destroy();
  }
}
