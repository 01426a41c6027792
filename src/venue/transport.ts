// The connection pool to the venue: keep-alive, bounded connections, closed on shutdown.

import { Agent } from "undici";

export class Transport {
  readonly dispatcher: Agent;

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
