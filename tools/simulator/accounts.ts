// Accounts per collateral: position generation, the balance at a tick, and the margin accounting derived from marks.
import type { CollateralInfo, MarketState } from "./markets.js";
import { roundToIncrement } from "./numbers.js";
import { Rng } from "./prng.js";

export interface PositionState {
  market: MarketState;
  direction: "LONG" | "SHORT";
  /** Asset units, a multiple of the market's step size. */
  size: number;
  /** Average execution (entry) price, on the market's tick. */
  entry: number;
  leverage: number;
  realizedPnl: number;
  /** Realized by the position's fills each tick, into its realizedPnl and the account's balance. */
  realizedPerTick: number;
}

export interface AccountState {
  collateral: CollateralInfo;
  positions: PositionState[];
  /** Balance the account returns to outside the scenarios; realized PnL accrues here. */
  baseBalance: number;
  balance: number;
}

export interface PositionFigures {
  position: PositionState;
  margin: number;
  borrowed: number;
  unrealizedPnl: number;
  maintenanceMargin: number;
  liquidationPrice: number;
}

export interface AccountFigures {
  collateralBalance: number;
  totalUnrealizedPnl: number;
  /** collateralBalance + totalUnrealizedPnl, as the reference defines it. */
  totalMargin: number;
  /** Sum of the positions' margin amounts. */
  totalInvested: number;
  availableMargin: number;
  maintenanceMargin: number;
  positions: PositionFigures[];
}

const MAX_POSITION_LEVERAGE = 20;
const HEALTHY_BALANCE_PER_INVESTED = 3;
/** How far below zero the wipeout scenario puts total margin: clear of rounding, so it never reads as a tiny positive. */
const WIPEOUT_DEFICIT = 0.5;
/** The balance's wobble (funding, fees) decays by this each tick; ticks further back than the memory weigh under 1 %. */
const NOISE_DECAY = 0.9;
const NOISE_STEP = 0.0003;
const NOISE_MEMORY = 48;
const LIQUIDATION_RATIO = 0.95;

function positionMargin(p: PositionState): number {
  return (p.size * p.entry) / p.leverage;
}

function unrealizedPnl(p: PositionState): number {
  return (p.market.mark - p.entry) * p.size * (p.direction === "LONG" ? 1 : -1);
}

function maintenanceMargin(p: PositionState): number {
  return p.size * p.market.mark * p.market.market.settings.maintenanceMarginFraction;
}

function buildPosition(market: MarketState, direction: "LONG" | "SHORT", rng: Rng): PositionState {
  const s = market.market.settings;
  // From the price the mark reverts to, not the mark: an account built at any tick holds the same positions.
  const entry = roundToIncrement(market.basePrice * rng.range(0.98, 1.02), s.tickSize, s.tickPrecision);
  const notional = rng.logRange(2_000, 80_000) / market.collateral.usdValue;
  const size = Math.max(s.stepSize, roundToIncrement(notional / entry, s.stepSize, s.stepPrecision));
  const leverage = rng.int(s.minLeverage, Math.max(s.minLeverage, Math.min(s.maxLeverage, MAX_POSITION_LEVERAGE)));
  const realizedPnl = size * entry * rng.range(-0.02, 0.03);
  return { market, direction, size, entry, leverage, realizedPnl, realizedPerTick: size * entry * rng.range(-0.000_001, 0.000_001_5) };
}

/** One account per collateral; positions go round-robin over collaterals, one per market, LONG and SHORT alternating within each account. */
export function generateAccounts(collaterals: readonly CollateralInfo[], markets: readonly MarketState[], positions: number, rng: Rng): AccountState[] {
  const free = collaterals.map((c) => rng.shuffle(markets.filter((m) => m.collateral.id === c.id)));
  const accounts: AccountState[] = collaterals.map((collateral) => ({ collateral, positions: [], baseBalance: 0, balance: 0 }));
  for (let i = 0; i < positions; i++) {
    const slot = [...accounts.keys()].map((k) => (i + k) % accounts.length).find((k) => (free[k]?.length ?? 0) > 0);
    if (slot === undefined) break; // every market already holds a position
    const market = free[slot]?.pop();
    const account = accounts[slot];
    if (market === undefined || account === undefined) break;
    account.positions.push(buildPosition(market, account.positions.length % 2 === 0 ? "LONG" : "SHORT", rng));
  }
  for (const account of accounts) {
    const invested = account.positions.reduce((sum, p) => sum + positionMargin(p), 0);
    account.baseBalance = HEALTHY_BALANCE_PER_INVESTED * invested + rng.range(500, 5_000) / account.collateral.usdValue;
    account.balance = account.baseBalance;
  }
  return accounts;
}

/** What a scenario does to an account's balance: the liquidation ratio it holds, or total margin below zero. */
export type BalanceScenario = { kind: "liquidation"; ratio: number } | { kind: "wipeout" };

/** The wobble of the balance at `tick`: each tick's step decays by NOISE_DECAY, so the last NOISE_MEMORY ticks make it. */
export function balanceNoise(streamSeed: number, tick: number): number {
  let noise = 0;
  for (let k = Math.max(1, tick - NOISE_MEMORY + 1); k <= tick; k++) noise = noise * NOISE_DECAY + NOISE_STEP * Rng.item(streamSeed, k).normal();
  return noise;
}

/** The ratio the liquidation scenario holds at `tick`: about 0.95, a little different each tick. */
export function liquidationRatio(streamSeed: number, tick: number): number {
  return Math.min(0.97, Math.max(0.93, LIQUIDATION_RATIO + 0.008 * Rng.item(streamSeed, tick).normal()));
}

/**
 * `account` as it stands `ticks` after the start: the realized PnL of that many ticks, the balance wobbling by
 * `noise` around its base, or set by `scenario` so that sum(maintenanceMargin) / totalMargin is its ratio, or
 * total margin is below zero with the positions open.
 */
export function accountAt(account: AccountState, ticks: number, noise: number, scenario: BalanceScenario | undefined): AccountState {
  const positions = account.positions.map((p) => ({ ...p, realizedPnl: p.realizedPnl + ticks * p.realizedPerTick }));
  const baseBalance = account.baseBalance + ticks * positions.reduce((sum, p) => sum + p.realizedPerTick, 0);
  const at: AccountState = { collateral: account.collateral, positions, baseBalance, balance: baseBalance * (1 + noise) };
  if (scenario === undefined || positions.length === 0) return at;
  const upnl = positions.reduce((sum, p) => sum + unrealizedPnl(p), 0);
  const mm = positions.reduce((sum, p) => sum + maintenanceMargin(p), 0);
  at.balance = scenario.kind === "liquidation" ? mm / scenario.ratio - upnl : -upnl - WIPEOUT_DEFICIT;
  return at;
}

/**
 * Every derived figure of an account at the current marks. The liquidation price is the cross-margin price at
 * which the position's share (by margin) of the excess equity, totalMargin - sum(maintenanceMargin), is used up.
 */
export function accountFigures(account: AccountState): AccountFigures {
  const base = account.positions.map((position) => {
    const margin = positionMargin(position);
    return {
      position,
      margin,
      borrowed: position.size * position.entry - margin,
      unrealizedPnl: unrealizedPnl(position),
      maintenanceMargin: maintenanceMargin(position),
    };
  });
  const totalUnrealizedPnl = base.reduce((sum, p) => sum + p.unrealizedPnl, 0);
  const totalInvested = base.reduce((sum, p) => sum + p.margin, 0);
  const totalMaintenance = base.reduce((sum, p) => sum + p.maintenanceMargin, 0);
  const totalMargin = account.balance + totalUnrealizedPnl;
  const excess = totalMargin - totalMaintenance;
  const positions = base.map((p) => {
    const share = totalInvested > 0 ? (excess * p.margin) / totalInvested : 0;
    const mmf = p.position.market.market.settings.maintenanceMarginFraction;
    const mark = p.position.market.mark;
    const liquidationPrice =
      p.position.direction === "LONG" ? Math.max(0, mark - share / (p.position.size * (1 - mmf))) : mark + share / (p.position.size * (1 + mmf));
    return { ...p, liquidationPrice };
  });
  return {
    collateralBalance: account.balance,
    totalUnrealizedPnl,
    totalMargin,
    totalInvested,
    availableMargin: totalMargin - totalInvested,
    maintenanceMargin: totalMaintenance,
    positions,
  };
}
