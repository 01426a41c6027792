// Seeded pseudo-random numbers (mulberry32) and the sampling helpers the simulator draws from.

/** FNV-1a of a label, used to derive independent streams from one seed. */
function hashLabel(label: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** murmur3's finaliser: every input bit moves every output bit, so neighbouring indexes draw unrelated numbers. */
function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const SCRATCH = Buffer.alloc(260);

export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** An independent stream per purpose, so changing one count does not reshuffle everything else. */
  static stream(seed: number, label: string): Rng {
    return new Rng(Rng.streamSeed(seed, label));
  }

  /** The seed of `Rng.stream(seed, label)`, for drawing its items with `Rng.item`. */
  static streamSeed(seed: number, label: string): number {
    return (Math.imul(seed >>> 0, 0x9e3779b1) ^ hashLabel(label)) >>> 0;
  }

  /**
   * Item `index` (a whole number below 2^53) of a stream: the same stream seed and index always draw the same
   * numbers, whatever was drawn before, so a thing can be derived when asked for instead of kept.
   */
  static item(streamSeed: number, index: number): Rng {
    const high = Math.floor(index / 4294967296);
    return new Rng(mix32(mix32(streamSeed ^ mix32(index >>> 0)) ^ Math.imul(high + 1, 0x9e3779b1)));
  }

  u32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  range(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Log-uniform in [min, max], for prices and sizes spanning magnitudes. */
  logRange(min: number, max: number): number {
    return Math.exp(this.range(Math.log(min), Math.log(max)));
  }

  /** Standard normal (Box-Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error("Rng.pick from an empty list");
    return item;
  }

  /** Lower-case hex string of `chars` characters (up to 512), encoded natively from a scratch buffer. */
  hex(chars: number): string {
    const bytes = Math.ceil(chars / 2);
    for (let i = 0; i < bytes; i += 4) SCRATCH.writeUInt32LE(this.u32(), i);
    const text = SCRATCH.toString("hex", 0, bytes);
    return text.length === chars ? text : text.slice(0, chars);
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const a = items[i] as T;
      items[i] = items[j] as T;
      items[j] = a;
    }
    return items;
  }
}
