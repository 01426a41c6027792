// The connection pool to the venue: keep-alive, bounded connections, closed on shutdown.

import { createRequire } from "node:module";
import type { Agent as AgentType } from "undici";

// Only the Agent: the package's index loads every feature (fetch, websockets, caches, mocks) and
// costs about 10 MB more of memory than the dispatcher the exporter uses.
const Agent = createRequire(import.meta.url)("undici/lib/dispatcher/agent.js") as typeof AgentType;

export class Transport {
  readonly dispatcher: AgentType;

  constructor() {
    this.dispatcher = new Agent({
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 60_000,
      // A burst of scrapes shares one collection per account, so few connections per origin suffice.
      connections: 16,
      connect: { timeout: 10_000 },
    });
  }

  /** Closes idle connections and waits for busy ones to finish. */
  close(): Promise<void> {
    return this.dispatcher.close();
  }
}
