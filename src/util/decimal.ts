// Exact decimal sums and products of venue numbers, rounded to a double once at the end.

/** value = mantissa × 10^-scale, exactly. */
export type Decimal = { readonly mantissa: bigint; readonly scale: number };

/** The decimal a double was written as (its shortest round-trip text): 0.1 is 1×10^-1, not 0.1000000000000000055…. */
export function fromNumber(value: number): Decimal {
  // A finite double's exponent is within MAX_EXPONENT, so its text always reads.
  return parseDecimal(String(value))!;
}

export function add(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return { mantissa: a.mantissa * 10n ** BigInt(scale - a.scale) + b.mantissa * 10n ** BigInt(scale - b.scale), scale };
}

export function subtract(a: Decimal, b: Decimal): Decimal {
  return add(a, { mantissa: -b.mantissa, scale: b.scale });
}

export function abs(a: Decimal): Decimal {
  return a.mantissa < 0n ? { mantissa: -a.mantissa, scale: a.scale } : a;
}

/** n ÷ d rounded once to the nearest double (ties to even); a subnormal result may be off by one unit. */
function roundedRatio(n: bigint, d: bigint): number {
  if (n === 0n) return 0;
  const negative = n < 0n !== d < 0n;
  const a = n < 0n ? -n : n;
  const b = d < 0n ? -d : d;
  // A quotient of 64 bits or more, its last bit set when the division is inexact: Number() rounds it as the exact ratio.
  const shift = 64 - (a.toString(2).length - b.toString(2).length);
  const [num, den] = shift >= 0 ? [a << BigInt(shift), b] : [a, b << BigInt(-shift)];
  const q = num / den;
  // Scaled in two halves so neither factor overflows unless the result does too.
  const half = Math.trunc(shift / 2);
  const value = Number(q * den === num ? q : q | 1n) * 2 ** -half * 2 ** (half - shift);
  return negative ? -value : value;
}

const integerRatio = (n: Decimal, d: Decimal): [bigint, bigint] => [n.mantissa * 10n ** BigInt(d.scale), d.mantissa * 10n ** BigInt(n.scale)];

/** n ÷ d of the decimals as written, rounded once (0.19, not 0.19000000000000003); undefined when d is 0. */
export function quotient(n: Decimal, d: Decimal): number | undefined {
  return d.mantissa === 0n ? undefined : roundedRatio(...integerRatio(n, d));
}

const MAX_EXPONENT = 400;
const DECIMAL_PARTS = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

function parseDecimal(text: string): Decimal | undefined {
  const m = DECIMAL_PARTS.exec(text.trim());
  if (m === null) return undefined;
  const [, sign, int = "", frac = "", exp = "0"] = m;
  if (int === "" && frac === "") return undefined;
  const exponent = Number(exp);
  if (!(Math.abs(exponent) <= MAX_EXPONENT)) return undefined;
  const mantissa = BigInt(sign + int + frac);
  const scale = frac.length - exponent;
  return scale < 0 ? { mantissa: mantissa * 10n ** BigInt(-scale), scale: 0 } : { mantissa, scale };
}

export function significantDigits(text: string): number {
  return text
    .replace(/[eE].*$/, "")
    .replace(/[^0-9]/g, "")
    .replace(/^0+/, "").length;
}

/** Beyond this many significant digits a double does not keep a decimal as written. */
export const DOUBLE_DIGITS = 15;

/** The decimal `text` as written when a double would not keep it; else undefined. */
export function longDecimal(text: string): Decimal | undefined {
  return significantDigits(text) > DOUBLE_DIGITS ? parseDecimal(text) : undefined;
}

export function decimalOf(value: number, exact: Decimal | undefined): Decimal {
  return exact ?? fromNumber(value);
}

export function multiply(a: Decimal, b: Decimal): Decimal {
  return { mantissa: a.mantissa * b.mantissa, scale: a.scale + b.scale };
}

/** ⌈n ÷ d⌉ as an integer, exactly; n ≥ 0 and d > 0. */
export function ceilQuotient(n: Decimal, d: Decimal): bigint {
  const [num, den] = integerRatio(n, d);
  return (num + den - 1n) / den;
}

export function toNumber(d: Decimal): number {
  return Number(`${d.mantissa}e-${d.scale}`);
}

const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);
const EXACT_DIGITS = 1e15;

let scaledK = 0;

/** m with value = m × 10^-k when m has at most 15 digits (k left in scaledK, so a sum allocates nothing); else NaN. */
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

/** An exact decimal sum of doubles read from decimal text, in plain numbers while it fits in 2^53; `value` rounds once. */
export class ExactSum {
  #m = 0;
  #k = 0;
  #big: Decimal | undefined;

  add(value: number): this {
    const m = scaled(value);
    if (Number.isNaN(m)) return this.addDecimal(fromNumber(value));
    return this.#addScaled(m, scaledK);
  }

  addProduct(a: number, b: number): this {
    const x = scaled(a);
    const xk = scaledK;
    const y = scaled(b);
    const yk = scaledK;
    if (!Number.isNaN(x) && !Number.isNaN(y)) {
      const m = x * y;
      if (Math.abs(m) <= Number.MAX_SAFE_INTEGER && xk + yk < POW10.length) return this.#addScaled(m, xk + yk);
    }
    // A double of at most 15 digits has one such decimal: x × 10^-xk is the value of fromNumber(a).
    return this.addDecimal(multiply(fromNumber(a), fromNumber(b)));
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
