// A desk of N simulated accounts on one venue: each account its own API key, seeded state and responder.
import type { IncomingMessage } from "node:http";
import type { SimConfig } from "./config.js";
import { SimState } from "./state.js";
import { VenueResponder } from "./venue.js";

/** Account i's name (from 0): zero-padded so names sort as numbers and `/sd` lists them in order. */
export function deskAccountName(i: number, count: number): string {
  return `sim-${String(i + 1).padStart(Math.max(4, String(count).length), "0")}`;
}

/** Account i's key: the configured key itself for a one-account desk (as before), else the key with the account's number. */
export function deskAccountKey(apiKey: string, i: number, count: number): string {
  return count === 1 ? apiKey : `${apiKey}-${i + 1}`;
}

export class Desk {
  readonly states: readonly SimState[];
  readonly #byKey = new Map<string, VenueResponder>();
  /** Answers public requests, and private ones whose key is unknown (with 401, as its key does not match). */
  readonly first: VenueResponder;
  readonly #header: string;

  constructor(config: SimConfig) {
    const states: SimState[] = [];
    for (let i = 0; i < config.accounts; i++) {
      // Seed + i: account 0 is the one-account venue of before, and every other account moves differently.
      const state = new SimState(config, config.seed + i);
      const key = deskAccountKey(config.apiKey, i, config.accounts);
      states.push(state);
      this.#byKey.set(key, new VenueResponder(state, config, key));
    }
    this.states = states;
    this.first = this.#byKey.values().next().value as VenueResponder;
    this.#header = config.apiKeyHeader.toLowerCase();
  }

  /** The scenarios, the control API's state and the public market list act on the first account. */
  get firstState(): SimState {
    return this.states[0] as SimState;
  }

  /** The responder of the account whose key the request carries. */
  responderFor(req: IncomingMessage): VenueResponder {
    const key = req.headers[this.#header];
    return (typeof key === "string" ? this.#byKey.get(key) : undefined) ?? this.first;
  }

  tick(n: number): void {
    for (const state of this.states) state.tick(n);
  }

  /** Serialises every account's orders a little at a time, so the first answers are quick; returns the stop. */
  warmInBackground(): () => void {
    const stops = this.states.map((state) => state.book.warmInBackground());
    return () => {
      for (const stop of stops) stop();
    };
  }
}
