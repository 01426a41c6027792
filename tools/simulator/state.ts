// The venue's shared state: the market list and its marks, the simulated clock, ticks and scenarios. Each
// account's own state is derived from its seed and the tick when asked (desk-account.ts).
import type { AccountState } from "./accounts.js";
import type { SimConfig } from "./config.js";
import { DeskAccount } from "./desk-account.js";
import { collateralInfo, generateMarkets, stepMarks, type CollateralInfo, type MarketState } from "./markets.js";
import { Rng } from "./prng.js";
import type { ScenarioName } from "./types.js";

/** The drift scenario's margin ratio: 0.30 at its start, DRIFT_STEP more each tick, held at 0.99 short of liquidation. */
const DRIFT_START = 0.3;
export const DRIFT_STEP = 0.005;
export const driftRatio = (ticks: number): number => Math.min(0.99, DRIFT_START + DRIFT_STEP * ticks);

export class SimState {
  readonly markets: MarketState[];
  readonly collaterals: CollateralInfo[];
  /** The first account: the one the scenarios act on and /_sim/state describes. */
  readonly first: DeskAccount;
  private readonly walkRng: Rng;
  private readonly simTickMs: number;
  ticks = 0;
  nowMs: number;
  /** Bumped on every change; response caches key on it. */
  version = 0;
  /** Bumped only when a market changes (scenarios), so the market list outlives ticks in the cache. */
  marketsVersion = 0;
  liquidating = false;
  /** The tick the drift scenario started at: from it the margin ratio rises DRIFT_STEP a tick. */
  driftFrom: number | undefined;
  /** Total margin held below zero on the scenario account (the wipeout scenario). */
  wipedOut = false;
  halted: MarketState | undefined;

  constructor(private readonly config: SimConfig) {
    this.collaterals = config.collaterals.map(collateralInfo);
    this.nowMs = config.epochMs;
    this.simTickMs = config.tickMs > 0 ? config.tickMs : 1000;
    this.markets = generateMarkets(config.markets, this.collaterals, Rng.stream(config.seed, "markets"));
    this.walkRng = Rng.stream(config.seed, "walk");
    this.first = new DeskAccount(config, this.markets, this.collaterals, config.seed);
  }

  /** Account `index` of the desk (from 0), whose own seed is the venue's plus `index`: account 0 is the one-account venue. */
  account(index: number): DeskAccount {
    return index === 0 ? this.first : new DeskAccount(this.config, this.markets, this.collaterals, this.config.seed + index);
  }

  /** `account`'s collateral `id` now; the scenarios act on the first account. */
  collateral(account: DeskAccount, id: string): AccountState | undefined {
    if (account !== this.first) return account.collateralAt(id, this.ticks, undefined);
    if (this.driftFrom !== undefined) return account.collateralAt(id, this.ticks, { kind: "liquidation", ratio: driftRatio(this.ticks - this.driftFrom) });
    return account.collateralAt(id, this.ticks, this.liquidating ? "liquidation" : this.wipedOut ? "wipeout" : undefined);
  }

  tick(n = 1): void {
    for (let i = 0; i < n; i++) {
      this.nowMs += this.simTickMs;
      this.ticks += 1;
      stepMarks(this.markets, this.walkRng);
    }
    this.version += 1;
  }

  setScenario(name: ScenarioName): void {
    this.driftFrom = name === "drift" ? this.ticks : undefined;
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
    } else if (name === "drift") {
      this.liquidating = false;
      this.wipedOut = false;
    } else {
      const held = this.first.scenarioCollateral?.positions[0] ?? this.first.collaterals.flatMap((a) => a.positions)[0];
      this.halted = held?.market ?? this.markets[0];
      if (this.halted !== undefined) this.halted.market.status = "CLOSE_ONLY";
    }
    this.version += 1;
    this.marketsVersion += 1;
  }
}
