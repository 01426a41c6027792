// One account of the desk, derived from its seed: positions and orders drawn when it is built, its balances and
// its book at a tick computed when asked, so nothing of it needs keeping between asks.
import { accountAt, balanceNoise, generateAccounts, liquidationRatio, type AccountState, type BalanceScenario } from "./accounts.js";
import type { SimConfig } from "./config.js";
import type { CollateralInfo, MarketState } from "./markets.js";
import { OrderBook } from "./order-book.js";
import { OrderFactory } from "./orders.js";
import { Rng } from "./prng.js";

export type AccountScenario = BalanceScenario["kind"];

export class DeskAccount {
  readonly accountId: string;
  readonly book: OrderBook;
  /** Each collateral's account at the start. */
  readonly collaterals: readonly AccountState[];
  readonly #noiseSeeds: readonly number[];
  readonly #liquidationSeed: number;

  /** `seed` moves this account's own state; the markets are the venue's, shared by every account. */
  constructor(config: SimConfig, markets: readonly MarketState[], collaterals: readonly CollateralInfo[], seed: number) {
    this.collaterals = generateAccounts(collaterals, markets, config.positions, Rng.stream(seed, "accounts"));
    this.accountId = String(Rng.stream(seed, "account-id").int(100_000, 999_999));
    const factory = new OrderFactory(markets, this.accountId, config.timeUnit);
    const tickMs = config.tickMs > 0 ? config.tickMs : 1000;
    this.book = new OrderBook(factory, seed, { activeOrders: config.activeOrders, historyOrders: config.historyOrders, epochMs: config.epochMs, tickMs });
    this.#noiseSeeds = this.collaterals.map((a) => Rng.streamSeed(seed, `balance:${a.collateral.id}`));
    this.#liquidationSeed = Rng.streamSeed(seed, "liquidation");
  }

  /** The collateral the liquidation, wipeout and halt scenarios act on: the first detailed one. */
  get scenarioCollateral(): AccountState | undefined {
    return this.collaterals.find((a) => a.collateral.shape === "detailed");
  }

  /** Collateral `id` at `tick`; `scenario` moves the scenario collateral's balance. */
  collateralAt(id: string, tick: number, scenario: AccountScenario | BalanceScenario | undefined): AccountState | undefined {
    const index = this.collaterals.findIndex((a) => a.collateral.id === id);
    const account = this.collaterals[index];
    if (account === undefined) return undefined;
    let balance: BalanceScenario | undefined;
    if (typeof scenario === "object" && account === this.scenarioCollateral) balance = scenario;
    else if (scenario !== undefined && account === this.scenarioCollateral) {
      balance = scenario === "liquidation" ? { kind: "liquidation", ratio: liquidationRatio(this.#liquidationSeed, tick) } : { kind: "wipeout" };
    }
    return accountAt(account, tick, balanceNoise(this.#noiseSeeds[index] ?? 0, tick), balance);
  }
}
