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

/**
 * Fast path of fromNumber: value = m × 10^-k with the fewest decimals, as plain numbers, when m has
 * at most 15 digits (then that decimal is exactly the one the double was written as). Else undefined.
 */
function scaled(value: number): [m: number, k: number] | undefined {
  for (let k = 0; k <= 15; k++) {
    const m = Math.round(value * POW10[k]!);
    if (!(Math.abs(m) < EXACT_DIGITS)) return undefined;
    if (m / POW10[k]! === value) return [m, k];
  }
  return undefined;
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
    const s = scaled(value);
    if (s === undefined) return this.#addBig(fromNumber(value));
    return this.#addScaled(s[0], s[1]);
  }

  /** Adds a × b exactly (a notional: price × quantity). */
  addProduct(a: number, b: number): this {
    const x = scaled(a);
    const y = scaled(b);
    if (x !== undefined && y !== undefined) {
      const m = x[0] * y[0];
      if (Math.abs(m) <= Number.MAX_SAFE_INTEGER && x[1] + y[1] < POW10.length) return this.#addScaled(m, x[1] + y[1]);
    }
    const dx = x === undefined ? fromNumber(a) : { mantissa: BigInt(x[0]), scale: x[1] };
    const dy = y === undefined ? fromNumber(b) : { mantissa: BigInt(y[0]), scale: y[1] };
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
