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

/** Accumulates an exact sum of doubles read from decimal text; `value` rounds once. */
export class ExactSum {
  #total: Decimal = ZERO;
  #plain = 0;
  #plainExact = true;

  add(value: number): this {
    // Integers that stay below 2^53 add exactly as doubles: skip the BigInt work.
    if (this.#plainExact && Number.isInteger(value)) {
      const next = this.#plain + value;
      if (Math.abs(next) <= Number.MAX_SAFE_INTEGER) {
        this.#plain = next;
        return this;
      }
    }
    this.#spill();
    this.#total = add(this.#total, fromNumber(value));
    return this;
  }

  /** Adds a × b exactly (a notional: price × quantity). */
  addProduct(a: number, b: number): this {
    const product = Math.abs(a * b) <= Number.MAX_SAFE_INTEGER && Number.isInteger(a) && Number.isInteger(b);
    if (product) return this.add(a * b);
    this.#spill();
    const x = fromNumber(a);
    const y = fromNumber(b);
    this.#total = add(this.#total, { mantissa: x.mantissa * y.mantissa, scale: x.scale + y.scale });
    return this;
  }

  get decimal(): Decimal {
    return this.#plainExact ? fromNumber(this.#plain) : add(this.#total, fromNumber(this.#plain));
  }

  get value(): number {
    return this.#plainExact ? this.#plain : toNumber(this.decimal);
  }

  #spill(): void {
    if (this.#plainExact) {
      this.#total = add(this.#total, fromNumber(this.#plain));
      this.#plain = 0;
      this.#plainExact = false;
    }
  }
}

/** a × b as the decimal product of the two numbers as written, rounded once. */
export function exactProduct(a: number, b: number): number {
  return new ExactSum().addProduct(a, b).value;
}
