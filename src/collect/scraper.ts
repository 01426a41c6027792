// Collects one scrape: every configured account's endpoints and the markets, in parallel.

import type { AccountConfig, Config } from "../config/types.js";
import type { Deadline } from "../util/deadline.js";
import { VenueClient, type CallContext, type ClientHooks } from "../venue/client.js";
import type { Endpoint } from "../venue/endpoints.js";
import type { AccountInfo } from "../venue/snapshot.js";
import type { AccountResult, MarketsResult, ScrapeResult } from "./result.js";
import { mergeOutcomes, runEndpoint } from "./runner.js";

export interface ScraperHooks extends ClientHooks {
  /** A field the venue sent missing or malformed, counted per scrape. */
  onInvalidFields(endpoint: Endpoint, counts: Map<string, number>): void;
}

function context(deadline: Deadline, endpoint: Endpoint, hooks: ScraperHooks): [CallContext, () => void] {
  const counts = new Map<string, number>();
  const ctx: CallContext = {
    deadline,
    invalid: (field) => counts.set(field, (counts.get(field) ?? 0) + 1),
  };
  return [ctx, () => counts.size > 0 && hooks.onInvalidFields(endpoint, counts)];
}

export class Scraper {
  readonly #accounts: Map<string, { config: AccountConfig; client: VenueClient }>;
  readonly #publicClient: VenueClient;
  readonly #hooks: ScraperHooks;

  constructor(config: Config, hooks: ScraperHooks) {
    this.#hooks = hooks;
    this.#publicClient = new VenueClient(config.venue, undefined, hooks);
    this.#accounts = new Map(
      config.accounts.map((a) => [a.name, { config: a, client: new VenueClient(config.venue, a, hooks) }]),
    );
  }

  accountNames(): string[] {
    return [...this.#accounts.keys()];
  }

  /** Every account (or the named ones) and, unless left out, the markets. */
  async scrape(deadline: Deadline, options: { accounts?: string[]; markets?: boolean } = {}): Promise<ScrapeResult> {
    const names = options.accounts ?? this.accountNames();
    const [accounts, markets] = await Promise.all([
      Promise.all(names.map((name) => this.#scrapeAccount(name, deadline))),
      options.markets === false ? Promise.resolve(undefined) : this.#scrapeMarkets(deadline),
    ]);
    return { accounts, markets };
  }

  async #call<T>(endpoint: Endpoint, account: string | undefined, deadline: Deadline, fn: (ctx: CallContext) => Promise<T>) {
    const [ctx, flush] = context(deadline, endpoint, this.#hooks);
    const run = await runEndpoint(endpoint, account, () => fn(ctx));
    flush();
    return run;
  }

  async #scrapeMarkets(deadline: Deadline): Promise<MarketsResult> {
    const run = await this.#call("markets", undefined, deadline, (ctx) => this.#publicClient.markets(ctx));
    return { outcome: run.outcome, markets: run.value };
  }

  async #scrapeAccount(name: string, deadline: Deadline): Promise<AccountResult> {
    const entry = this.#accounts.get(name);
    if (entry === undefined) throw new Error(`no account named ${JSON.stringify(name)}`);
    const { config, client } = entry;
    const [infos, active, history] = await Promise.all([
      Promise.all(
        config.collateralIds.map((id) => this.#call("account_info", name, deadline, (ctx) => client.accountInfo(id, ctx))),
      ),
      this.#call("orders_active", name, deadline, (ctx) => client.activeOrders(ctx)),
      this.#call("orders_history", name, deadline, (ctx) => client.orderHistory(ctx)),
    ]);
    return {
      account: name,
      outcomes: [
        mergeOutcomes("account_info", name, infos.map((r) => r.outcome)),
        active.outcome,
        history.outcome,
      ],
      accountInfos: infos.map((r) => r.value).filter((v): v is AccountInfo => v !== undefined),
      activeOrders: active.value,
      history: history.value,
    };
  }
}
