// The page's time-to-liquidation: margin ratio and margin in use sampled once a minute for 30 minutes, judged as the rules do.

export type TrendFigure = "ratio" | "usage";

const WINDOW_SECONDS = 1_800;
const SHORT_SECONDS = 600;
const STEP_SECONDS = 60;

/** Seconds, value pairs, oldest first: at most one a minute (the newest may be younger), so at most 32 for 30 minutes. */
type Samples = number[];

/** The least-squares slope per second of the samples at or after `since`, about their means so a flat line reads exactly 0. */
function slope(samples: Samples, since: number): number | undefined {
  const first = samples.findIndex((t, i) => i % 2 === 0 && t >= since);
  const kept = first < 0 ? [] : samples.slice(first);
  const n = kept.length / 2;
  if (n < 2) return undefined;
  let [mt, mv] = [0, 0];
  for (let i = 0; i < kept.length; i += 2) [mt, mv] = [mt + kept[i]! / n, mv + kept[i + 1]! / n];
  let [across, spread] = [0, 0];
  for (let i = 0; i < kept.length; i += 2) {
    const dt = kept[i]! - mt;
    across += dt * (kept[i + 1]! - mv);
    spread += dt * dt;
  }
  return spread > 0 ? across / spread : undefined;
}

export class MarginTrend {
  readonly #samples = new Map<string, Samples>();

  /** The figures of one collection at `at` (monotonic seconds); a collateral not sampled for 30 minutes is forgotten. */
  observe(at: number, collaterals: ReadonlyArray<{ collateralId: string } & Record<TrendFigure, number | undefined>>): void {
    for (const c of collaterals) {
      for (const figure of ["ratio", "usage"] as const) {
        const value = c[figure];
        const key = `${figure} ${c.collateralId}`;
        // +Inf is past liquidation (no margin left): the trend before it no longer tells when, so it starts again.
        if (value !== undefined && !Number.isFinite(value)) this.#samples.delete(key);
        if (value === undefined || !Number.isFinite(value)) continue;
        const samples = this.#samples.get(key) ?? [];
        if (samples.length === 0) this.#samples.set(key, samples);
        // The newest sample moves forward until a minute has passed since the one before it.
        if (samples.length >= 4 && at - samples[samples.length - 4]! < STEP_SECONDS) samples.splice(-2, 2);
        samples.push(at, value);
        while (samples[0]! < at - WINDOW_SECONDS) samples.splice(0, 2);
      }
    }
    for (const [key, samples] of this.#samples) if (samples[samples.length - 2]! < at - WINDOW_SECONDS) this.#samples.delete(key);
  }

  /** Seconds until the figure reaches 1 at the lesser trend; undefined unless it rises over at least 10 minutes of samples and is below 1. */
  secondsToOne(collateralId: string, figure: TrendFigure, now: number): number | undefined {
    const samples = this.#samples.get(`${figure} ${collateralId}`);
    if (samples === undefined || samples.length < 4 || samples[samples.length - 2]! - samples[0]! < SHORT_SECONDS) return undefined;
    const [long, short] = [slope(samples, now - WINDOW_SECONDS), slope(samples, now - SHORT_SECONDS)];
    const rate = long === undefined || short === undefined ? (long ?? short) : Math.min(long, short);
    const last = samples[samples.length - 1]!;
    return rate === undefined || rate <= 0 || last >= 1 ? undefined : (1 - last) / rate;
  }
}
