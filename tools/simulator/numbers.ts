// Number formatting for the wire: fixed-decimal strings without exponents, and rounding to increments.

/** A decimal string with exactly `places` decimals, never in exponent notation and never "-0.00". */
export function formatDecimal(value: number, places: number): string {
  if (!Number.isFinite(value)) return (0).toFixed(places);
  let text: string;
  if (Math.abs(value) < 1e21) {
    text = value.toFixed(places);
  } else {
    const whole = BigInt(Math.round(value)).toString();
    text = places > 0 ? `${whole}.${"0".repeat(places)}` : whole;
  }
  return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text;
}

/** Round to `places` decimals and return a JSON-friendly number (no float noise like 0.30000000000000004). */
export function roundTo(value: number, places: number): number {
  const rounded = Number(value.toFixed(Math.min(places, 20)));
  return Object.is(rounded, -0) ? 0 : rounded;
}

/** Round to a multiple of `increment` whose decimals are `precision` (up to 15). */
export function roundToIncrement(value: number, increment: number, precision: number): number {
  const scale = 10 ** Math.min(precision, 15);
  // A whole number of 10^-precision units divided by the exact 10^precision is the double nearest that decimal.
  return Math.round(Math.round(value / increment) * increment * scale) / scale + 0;
}

/** The power of ten 10^exp as an exact-looking number (1e-4 is 0.0001). */
export function powerOfTen(exp: number): number {
  return Number(`1e${exp}`);
}

/** Convert a millisecond timestamp to the configured unit, as an integer. */
export function msToUnit(ms: number, unit: "s" | "ms" | "us" | "ns"): number {
  switch (unit) {
    case "s":
      return Math.floor(ms / 1000);
    case "ms":
      return ms;
    case "us":
      return ms * 1000;
    case "ns":
      return ms * 1_000_000;
  }
}
