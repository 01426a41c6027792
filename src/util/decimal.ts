// Exact decimal sums and products of venue numbers, rounded to a double once at the end.

/** value = mantissa × 10^-scale, exactly. */
export interface Decimal {
  readonly mantissa: bigint;
  readonly scale: number;
}

const ZERO: Decimal = { mantissa: 0n, scale: 0 };

/**
 * The decimal a double was written as: the shortest string that round-trips (what JSON.parse or
 * Number() read), so "0.1" is 1×10^-1 and not 0.1000000000000000055….
 */
export function fromNumber(value: number): Decimal {
  if (Number.isInteger(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER) {
    return { mantissa: BigInt(value), scale: 0 };
  }
  const text = String(value);
  const expAt = text.search(/e/i);
  const body = expAt === -1 ? text : text.slice(0, expAt);
  const exponent = expAt === -1 ? 0 : Number(text.slice(expAt + 1));
  const dot = body.indexOf(".");
  const digits = dot === -1 ? body : body.slice(0, dot) + body.slice(dot + 1);
  let scale = (dot === -1 ? 0 : body.length - dot - 1) - exponent;
  let mantissa = BigInt(digits);
  if (scale < 0) {
    mantissa *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { mantissa, scale };
}

function align(a: Decimal, b: Decimal): [bigint, bigint, number] {
  if (a.scale === b.scale) return [a.mantissa, b.mantissa, a.scale];
  if (a.scale > b.scale) return [a.mantissa, b.mantissa * 10n ** BigInt(a.scale - b.scale), a.scale];
  return [a.mantissa * 10n ** BigInt(b.scale - a.scale), b.mantissa, b.scale];
}

function add(a: Decimal, b: Decimal): Decimal {
  const [x, y, scale] = align(a, b);
  return { mantissa: x + y, scale };
}

/** a − b, exactly. */
export function subtract(a: Decimal, b: Decimal): Decimal {
  return add(a, { mantissa: -b.mantissa, scale: b.scale });
}

export function abs(a: Decimal): Decimal {
  return a.mantissa < 0n ? { mantissa: -a.mantissa, scale: a.scale } : a;
}

const QUOTIENT_DIGITS = 25;

function digitCount(n: bigint): number {
  return (n < 0n ? -n : n).toString().length;
}

/**
 * n ÷ d to 25 significant digits, then to the nearest double: the ratio of the two decimals as
 * written, not of their binary approximations (0.19, not 0.19000000000000003). Undefined when d is 0.
 */
export function quotient(n: Decimal, d: Decimal): number | undefined {
  if (d.mantissa === 0n) return undefined;
  // n.m/10^n.s ÷ d.m/10^d.s = (n.m × 10^d.s) ÷ (d.m × 10^n.s)
  const num = n.mantissa * 10n ** BigInt(d.scale);
  const den = d.mantissa * 10n ** BigInt(n.scale);
  const shift = Math.max(0, QUOTIENT_DIGITS + digitCount(den) - digitCount(num));
  const q = (num * 10n ** BigInt(shift)) / den;
  return Number(`${q}e-${shift}`);
}

export function toNumber(d: Decimal): number {
  return d.scale === 0 ? Number(d.mantissa) : Number(`${d.mantissa}e-${d.scale}`);
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
    if (Number.isNaN(m)) return this.#addBig(fromNumber(value));
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
    return this.#addBig({ mantissa: dx.mantissa * dy.mantissa, scale: dx.scale + dy.scale });
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
    return this.#addBig({ mantissa: BigInt(m), scale: k });
  }

  #addBig(d: Decimal): this {
    this.#big = add(this.#big ?? { mantissa: BigInt(this.#m), scale: this.#k }, d);
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
