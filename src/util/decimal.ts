// Exact decimal sums and products of venue numbers, rounded to a double once at the end.

/** value = mantissa × 10^-scale, exactly. */
export interface Decimal {
  readonly mantissa: bigint;
  readonly scale: number;
}

/**
 * The decimal a double was written as: the shortest string that round-trips (what JSON.parse or
 * Number() read), so "0.1" is 1×10^-1 and not 0.1000000000000000055….
 */
export function fromNumber(value: number): Decimal {
  if (Number.isInteger(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER) {
    return { mantissa: BigInt(value), scale: 0 };
  }
  // A finite double's exponent is within MAX_EXPONENT, so its text always reads.
  return parseDecimal(String(value))!;
}

/** a + b, exactly: both brought to the finer scale. */
export function add(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return { mantissa: a.mantissa * 10n ** BigInt(scale - a.scale) + b.mantissa * 10n ** BigInt(scale - b.scale), scale };
}

/** a − b, exactly. */
export function subtract(a: Decimal, b: Decimal): Decimal {
  return add(a, { mantissa: -b.mantissa, scale: b.scale });
}

export function abs(a: Decimal): Decimal {
  return a.mantissa < 0n ? { mantissa: -a.mantissa, scale: a.scale } : a;
}

/**
 * n ÷ d rounded once to the nearest double (ties to even): the quotient is taken to 53 bits with
 * its remainder, so no intermediate decimal rounding can tip it. Exact for every normal double;
 * results below about 1e-308 (subnormal) may be off by one unit.
 */
function roundedRatio(n: bigint, d: bigint): number {
  if (n === 0n) return 0;
  const negative = n < 0n !== d < 0n;
  const a = n < 0n ? -n : n;
  const b = d < 0n ? -d : d;
  let shift = 53 - (a.toString(2).length - b.toString(2).length);
  const scaled = (s: number): [bigint, bigint] => (s >= 0 ? [a << BigInt(s), b] : [a, b << BigInt(-s)]);
  let [num, den] = scaled(shift);
  let q = num / den;
  if (q >= 1n << 53n) {
    shift--;
    [num, den] = scaled(shift);
    q = num / den;
  }
  const twice = (num - q * den) * 2n;
  if (twice > den || (twice === den && (q & 1n) === 1n)) q++;
  // q ≤ 2^53 is exact as a double; scaling by a power of two is exact while the result is normal,
  // and in two halves neither factor overflows unless the result does too.
  const half = Math.trunc(shift / 2);
  const value = Number(q) * 2 ** -half * 2 ** (half - shift);
  return negative ? -value : value;
}

/** n ÷ d as a ratio of integers: n.m/10^n.s ÷ d.m/10^d.s = (n.m × 10^d.s) ÷ (d.m × 10^n.s). */
const integerRatio = (n: Decimal, d: Decimal): [bigint, bigint] => [n.mantissa * 10n ** BigInt(d.scale), d.mantissa * 10n ** BigInt(n.scale)];

/**
 * n ÷ d as the ratio of the two decimals as written, rounded once to the nearest double (0.19, not
 * 0.19000000000000003). Undefined when d is 0.
 */
export function quotient(n: Decimal, d: Decimal): number | undefined {
  return d.mantissa === 0n ? undefined : roundedRatio(...integerRatio(n, d));
}

/** Decimal exponents beyond this are not read exactly (no double is that large or small anyway). */
const MAX_EXPONENT = 400;
const DECIMAL_PARTS = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** Decimal text (as the venue writes numbers: "-12.5", "1e3", ".5") read exactly; undefined if it is not one. */
function parseDecimal(text: string): Decimal | undefined {
  const m = DECIMAL_PARTS.exec(text.trim());
  if (m === null) return undefined;
  const [, sign, int = "", frac = "", exp = "0"] = m;
  if (int === "" && frac === "") return undefined;
  const exponent = Number(exp);
  if (!(Math.abs(exponent) <= MAX_EXPONENT)) return undefined;
  let mantissa = BigInt(int + frac);
  if (sign === "-") mantissa = -mantissa;
  let scale = frac.length - exponent;
  if (scale < 0) {
    mantissa *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { mantissa, scale };
}

/**
 * Significant digits of decimal text (leading zeros not counted). At most 15, and the double read
 * from the text prints back as the same decimal, so fromNumber() recovers it; beyond, only the text
 * holds the number as written.
 */
export function significantDigits(text: string): number {
  return text
    .replace(/[eE].*$/, "")
    .replace(/[^0-9]/g, "")
    .replace(/^0+/, "").length;
}

/** Beyond this many significant digits a double does not keep a decimal as written. */
export const DOUBLE_DIGITS = 15;

/** The decimal `text` as written when a double would not keep it (over 15 significant digits); else undefined. */
export function longDecimal(text: string): Decimal | undefined {
  return significantDigits(text) > DOUBLE_DIGITS ? parseDecimal(text) : undefined;
}

/** The exact decimal when the venue's text had one, else the decimal the double was written as. */
export function decimalOf(value: number, exact: Decimal | undefined): Decimal {
  return exact ?? fromNumber(value);
}

/** a × b, exactly. */
export function multiply(a: Decimal, b: Decimal): Decimal {
  return { mantissa: a.mantissa * b.mantissa, scale: a.scale + b.scale };
}

/** ⌈n ÷ d⌉ as an integer, exactly; n ≥ 0 and d > 0 (a count of whole steps, so a part step counts as one). */
export function ceilQuotient(n: Decimal, d: Decimal): bigint {
  const [num, den] = integerRatio(n, d);
  return (num + den - 1n) / den;
}

export function toNumber(d: Decimal): number {
  return Number(`${d.mantissa}e-${d.scale}`);
}

const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);
/** Below this, a decimal of that many digits maps to one double and back (15 significant digits). */
const EXACT_DIGITS = 1e15;

/** The scale of the last successful `scaled` call (kept here, not in a returned pair, so a sum allocates nothing). */
let scaledK = 0;

/**
 * Fast path of fromNumber: value = m × 10^-k with the fewest decimals, as plain numbers, when m has
 * at most 15 digits (then that decimal is exactly the one the double was written as): returns m and
 * leaves k in scaledK. Else NaN.
 */
function scaled(value: number): number {
  for (let k = 0; k <= 15; k++) {
    const m = Math.round(value * POW10[k]!);
    if (!(Math.abs(m) < EXACT_DIGITS)) return Number.NaN;
    if (m / POW10[k]! === value) {
      scaledK = k;
      return m;
    }
  }
  return Number.NaN;
}

/**
 * Accumulates an exact decimal sum of doubles read from decimal text; `value` rounds once. Sums stay
 * in plain numbers (an integer mantissa and a decimal scale) while they fit in 2^53 and move to
 * BigInt only when they do not, which keeps 50,000 orders cheap.
 */
export class ExactSum {
  #m = 0;
  #k = 0;
  #big: Decimal | undefined;

  add(value: number): this {
    const m = scaled(value);
    if (Number.isNaN(m)) return this.addDecimal(fromNumber(value));
    return this.#addScaled(m, scaledK);
  }

  /** Adds a × b exactly (a notional: price × quantity). */
  addProduct(a: number, b: number): this {
    const x = scaled(a);
    const xk = scaledK;
    const y = scaled(b);
    const yk = scaledK;
    if (!Number.isNaN(x) && !Number.isNaN(y)) {
      const m = x * y;
      if (Math.abs(m) <= Number.MAX_SAFE_INTEGER && xk + yk < POW10.length) return this.#addScaled(m, xk + yk);
    }
    const dx = Number.isNaN(x) ? fromNumber(a) : { mantissa: BigInt(x), scale: xk };
    const dy = Number.isNaN(y) ? fromNumber(b) : { mantissa: BigInt(y), scale: yk };
    return this.addDecimal(multiply(dx, dy));
  }

  #addScaled(m: number, k: number): this {
    if (this.#big === undefined) {
      const scale = Math.max(k, this.#k);
      const sum = this.#m * POW10[scale - this.#k]!;
      const term = m * POW10[scale - k]!;
      const next = sum + term;
      // Every step exact only while each operand and the result stay within 2^53.
      if (Math.abs(sum) <= Number.MAX_SAFE_INTEGER && Math.abs(term) <= Number.MAX_SAFE_INTEGER && Math.abs(next) <= Number.MAX_SAFE_INTEGER) {
        this.#m = next;
        this.#k = scale;
        return this;
      }
    }
    return this.addDecimal({ mantissa: BigInt(m), scale: k });
  }

  /** Adds a decimal exactly (one read from the venue's text, or one past the plain-number fast path). */
  addDecimal(d: Decimal): this {
    this.#big = add(this.decimal, d);
    return this;
  }

  get decimal(): Decimal {
    return this.#big ?? { mantissa: BigInt(this.#m), scale: this.#k };
  }

  get value(): number {
    // m / 10^k of two exact doubles is the correctly rounded value of the decimal.
    if (this.#big === undefined && this.#k < POW10.length) return this.#m / POW10[this.#k]!;
    return toNumber(this.decimal);
  }
}

/** a × b as the decimal product of the two numbers as written, rounded once. */
export function exactProduct(a: number, b: number): number {
  return new ExactSum().addProduct(a, b).value;
}
