// A desk of N simulated accounts on one venue: each account its own API key and a state derived from its seed
// when asked, so a desk of thousands starts at once and holds only the accounts being answered.
import type { IncomingMessage } from "node:http";
import type { SimConfig } from "./config.js";
import { SimState } from "./state.js";
import { VenueResponder } from "./venue.js";

/** Responders kept, most recently asked: enough for the collections of several exporters under way at once. */
const RESPONDERS_KEPT = 64;

/** Account i's name (from 0): zero-padded so names sort as numbers and `/sd` lists them in order. */
export function deskAccountName(i: number, count: number): string {
  return `sim-${String(i + 1).padStart(Math.max(4, String(count).length), "0")}`;
}

/** Account i's key: the configured key itself for a one-account desk (as before), else the key with the account's number. */
export function deskAccountKey(apiKey: string, i: number, count: number): string {
  return count === 1 ? apiKey : `${apiKey}-${i + 1}`;
}

export class Desk {
  readonly state: SimState;
  readonly #config: SimConfig;
  readonly #header: string;
  /** Most recently asked last; each holds its account's answers of the current tick. */
  readonly #responders = new Map<number, VenueResponder>();
  /** Answers given per account and request, for the moving mode: they outlive a responder. */
  readonly #moves = new Map<number, Map<string, number>>();

  constructor(config: SimConfig) {
    this.#config = config;
    this.state = new SimState(config);
    this.#header = config.apiKeyHeader.toLowerCase();
  }

  /** The account (from 0) whose key this is, or undefined. */
  #indexOf(key: string): number | undefined {
    const { apiKey, accounts } = this.#config;
    if (accounts === 1) return key === apiKey ? 0 : undefined;
    const number = key.startsWith(`${apiKey}-`) ? key.slice(apiKey.length + 1) : "";
    if (!/^[1-9]\d{0,9}$/.test(number) || Number(number) > accounts) return undefined;
    return Number(number) - 1;
  }

  /**
   * The responder of the account whose key the request carries; for no key or an unknown one the first account's,
   * which answers public requests and refuses private ones (401), as the key does not match.
   */
  responderFor(req: IncomingMessage): VenueResponder {
    const key = req.headers[this.#header];
    const index = (typeof key === "string" ? this.#indexOf(key) : undefined) ?? 0;
    let responder = this.#responders.get(index);
    if (responder === undefined) {
      const key = deskAccountKey(this.#config.apiKey, index, this.#config.accounts);
      let moves = this.#moves.get(index);
      if (moves === undefined && this.#config.moving) {
        moves = new Map();
        this.#moves.set(index, moves);
      }
      responder = new VenueResponder(this.state, this.state.account(index), this.#config, key, moves);
      if (this.#responders.size >= RESPONDERS_KEPT) this.#responders.delete(this.#responders.keys().next().value as number);
    } else {
      this.#responders.delete(index);
    }
    this.#responders.set(index, responder);
    return responder;
  }

  tick(n: number): void {
    this.state.tick(n);
  }
}
