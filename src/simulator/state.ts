// The whole simulated venue state: markets, accounts, orders, the simulated clock, ticks and scenarios.
import { generateAccounts, realize, settleBalance, wipeOut, type AccountState, type PositionState } from "./accounts.js";
import type { SimConfig } from "./config.js";
import { collateralInfo, generateMarkets, stepMarks, type MarketState } from "./markets.js";
import { OrderBook } from "./order-book.js";
import { OrderFactory } from "./orders.js";
import { Rng } from "./prng.js";
import type { ScenarioName } from "./types.js";

const LIQUIDATION_RATIO = 0.95;

export class SimState {
  readonly markets: MarketState[];
  readonly accounts: AccountState[];
  readonly book: OrderBook;
  readonly accountId: string;
  private readonly walkRng: Rng;
  private readonly positionsByMarket = new Map<number, { account: AccountState; position: PositionState }>();
  private readonly simTickMs: number;
  ticks = 0;
  nowMs: number;
  /** Bumped on every change; response caches key on it. */
  version = 0;
  /** Bumped only when a market changes (scenarios), so the market list outlives ticks in the cache. */
  marketsVersion = 0;
  liquidating = false;
  /** Total margin held below zero on the scenario account (the wipeout scenario). */
  wipedOut = false;
  halted: MarketState | undefined;

  /** `accountSeed` moves this account's own state (positions, orders, walk); the market list follows `config.seed`, shared by all. */
  constructor(config: SimConfig, accountSeed: number = config.seed) {
    const collaterals = config.collaterals.map(collateralInfo);
    this.nowMs = config.epochMs;
    this.simTickMs = config.tickMs > 0 ? config.tickMs : 1000;
    this.markets = generateMarkets(config.markets, collaterals, Rng.stream(config.seed, "markets"));
    this.accounts = generateAccounts(collaterals, this.markets, config.positions, Rng.stream(accountSeed, "accounts"));
    for (const account of this.accounts) {
      for (const position of account.positions) this.positionsByMarket.set(position.market.index, { account, position });
    }
    const orderRng = Rng.stream(accountSeed, "orders");
    this.accountId = String(orderRng.int(100_000, 999_999));
    const factory = new OrderFactory(orderRng, this.markets, this.accountId, config.timeUnit);
    this.book = new OrderBook(factory, orderRng, config.activeOrders, config.historyOrders, this.nowMs);
    this.walkRng = Rng.stream(accountSeed, "walk");
  }

  account(collateralId: string): AccountState | undefined {
    return this.accounts.find((a) => a.collateral.id === collateralId);
  }

  /** The account the liquidation and halt scenarios act on: the first detailed collateral's. */
  get scenarioAccount(): AccountState | undefined {
    return this.accounts.find((a) => a.collateral.shape === "detailed");
  }

  private settleBalances(jitter: boolean): void {
    const target = this.scenarioAccount;
    for (const account of this.accounts) {
      const ratio = jitter ? Math.min(0.97, Math.max(0.93, LIQUIDATION_RATIO + 0.008 * this.walkRng.normal())) : LIQUIDATION_RATIO;
      settleBalance(account, this.walkRng, this.liquidating && account === target ? ratio : undefined);
      if (this.wipedOut && account === target && account.positions.length > 0) wipeOut(account);
    }
  }

  tick(n = 1): void {
    for (let i = 0; i < n; i++) {
      const prevMs = this.nowMs;
      this.nowMs += this.simTickMs;
      this.ticks += 1;
      stepMarks(this.markets, this.walkRng);
      for (const fill of this.book.tick(prevMs, this.nowMs)) {
        const held = this.positionsByMarket.get(fill.market.index);
        if (held !== undefined) realize(held.account, held.position, fill.notional * this.walkRng.range(-0.001, 0.0015));
      }
      this.settleBalances(true);
    }
    this.version += 1;
  }

  setScenario(name: ScenarioName): void {
    if (name === "normal") {
      this.liquidating = false;
      this.wipedOut = false;
      this.halted = undefined;
      for (const m of this.markets) m.market.status = "TRADABLE";
    } else if (name === "liquidation") {
      this.liquidating = true;
      this.wipedOut = false;
    } else if (name === "wipeout") {
      this.wipedOut = true;
      this.liquidating = false;
    } else {
      const held = this.scenarioAccount?.positions[0] ?? this.accounts.flatMap((a) => a.positions)[0];
      this.halted = held?.market ?? this.markets[0];
      if (this.halted !== undefined) this.halted.market.status = "CLOSE_ONLY";
    }
    this.settleBalances(false);
    this.version += 1;
    this.marketsVersion += 1;
  }
}
