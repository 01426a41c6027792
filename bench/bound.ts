// The bound of the benchmark, run in the benchmark's process: the exporter's requests with fetch and
// JSON.parse (the floor), then the exporter's families (names, help, labels) rendered by a minimal template
// and gzipped at the exporter's level. What the exporter must do, at its plainest: numbers parsed as written,
// venue strings redacted and made valid label values, a value not given left out, sums exact (venue-series.ts),
// history repeats across pages counted once, label values escaped: what no exporter can beat.

import { gzipSync } from "node:zlib";
import { getBody, VenuePool } from "../src/venue/request.js";
import { FAMILIES, OrderIdMemory, redactor, venueSeries, type VenueData } from "./venue-series.js";

type Raw = Record<string, unknown>;

/** The exporter's gzip level (metrics/answer.ts). */
const GZIP_LEVEL = 1;

/** A number of more digits than a double keeps may follow `:`, `,` or `[`: only then is the body parsed keeping their text. */
const LONG_NUMBER = /[:,[]\s*-?[0-9.]{16}/;
const keepLong = (_key: string, value: unknown, context?: { source?: string }): unknown =>
  typeof value === "number" && (context?.source?.length ?? 0) > 15 ? context?.source : value;
/** JSON.parse, keeping a long number's text (the bench's venue sends none, so its series read it through Number). */
const parse = (text: string): unknown => (LONG_NUMBER.test(text) ? JSON.parse(text, keepLong as (key: string, value: unknown) => unknown) : JSON.parse(text));

/** A label value in the text format: backslash, double quote and line feed escaped (looked for first: most values have none). */
const ESCAPED = /[\\"\n]/;
const escapeLabel = (value: string): string => (ESCAPED.test(value) ? value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"') : value);

export interface VenueTarget {
  venue: string;
  key: string;
  collaterals: string[];
  activeLimit: number;
  historyLimit: number;
  /** Pages the history as the exporter does (offset/limit until a short page or the limit); absent: one request. */
  historyPageSize?: number;
  /** The account's name in the series' labels ("bench" when not given). */
  account?: string;
}

export class Bound {
  readonly #target: VenueTarget;
  readonly #headers: Record<string, string>;
  /** The market list, read once: the exporter caches it too (60 s by default), so it is not a per-scrape request. */
  #markets: Raw[] | undefined;
  readonly #marketsEveryScrape: boolean;
  /** Whether the market list's families are rendered; an account's probe reads the list for its positions only. */
  readonly #marketFamilies: boolean;
  /** With `pool`, bodies come through the exporter's own connection pool (undici's Agent) instead of fetch. */
  readonly #pool: VenuePool | undefined;

  /** True when the pool is the caller's (one for many bounds), which closes it. */
  readonly #sharedPool: boolean;
  /** Requests made with ky through the pool, as the exporter makes them (venue/request.ts), instead of the pool alone. */
  readonly #ky: boolean;
  /** What the exporter must keep between scrapes too: the order ids its counters count once, and the answer it shares. */
  readonly #ids = new OrderIdMemory();
  #answer: Buffer | undefined;

  /**
   * `client`: fetch, a pool of its own, or a pool shared by many bounds (the scale benchmark's accounts).
   * `markets`: a list given once and never fetched; `marketFamilies: false` (an account's probe) reads it for the positions' margin only.
   * `ky`: with a pool, each request made with ky over it, as the exporter's getBody makes it.
   */
  constructor(
    target: VenueTarget,
    options: { marketsEveryScrape?: boolean; client?: "fetch" | "pool" | VenuePool; markets?: Raw[]; marketFamilies?: boolean; ky?: boolean } = {},
  ) {
    this.#target = target;
    redactor.hold([target.key]);
    this.#markets = options.markets;
    this.#headers = { "x-api-key": target.key };
    this.#marketsEveryScrape = options.marketsEveryScrape === true;
    this.#marketFamilies = options.marketFamilies !== false;
    this.#sharedPool = typeof options.client === "object";
    this.#ky = options.ky === true;
    this.#pool = typeof options.client === "object" ? options.client : options.client === "pool" ? new VenuePool(16) : undefined;
  }

  async #get(path: string): Promise<unknown> {
    const url = new URL(path, this.#target.venue);
    if (this.#pool === undefined) return parse(await (await fetch(url, { headers: this.#headers })).text());
    if (this.#ky) {
      const body = await getBody({
        url,
        headers: new Headers(this.#headers),
        signal: AbortSignal.timeout(10_000),
        remainingMs: () => 10_000,
        maxBodyBytes: 10 * 2 ** 20,
        maxRetryAfterSeconds: 0,
        pool: this.#pool,
      });
      return parse(body.toString("utf8"));
    }
    const answer = await this.#pool.agent.request({ origin: url.origin, path: url.pathname + url.search, method: "GET", headers: this.#headers });
    return parse(await answer.body.text());
  }

  async close(): Promise<void> {
    if (!this.#sharedPool && this.#pool !== undefined) await this.#pool.close();
  }

  /** The history as the exporter reads it: pages of historyPageSize until a short one or historyLimit orders, an id repeated across pages kept once. */
  async #history(): Promise<unknown> {
    const t = this.#target;
    if (t.historyPageSize === undefined) return this.#get(`v1/private/orders/history?offset=0&limit=${t.historyLimit}`);
    const orders: Raw[] = [];
    const seen = new Set<unknown>();
    for (let offset = 0; ; ) {
      const limit = Math.min(t.historyPageSize, t.historyLimit - orders.length);
      const page = (await this.#get(`v1/private/orders/history?offset=${offset}&limit=${limit}`)) as Raw[];
      for (const order of page) {
        if (seen.has(order.id)) continue;
        seen.add(order.id);
        orders.push(order);
      }
      offset += page.length;
      if (page.length < limit || orders.length >= t.historyLimit) return orders;
    }
  }

  /** The floor: the exporter's requests for one scrape, in parallel, each body through JSON.parse. */
  async fetch(): Promise<VenueData> {
    const t = this.#target;
    const durations: number[] = [];
    const timed = async (path: string | (() => Promise<unknown>), i: number) => {
      const started = performance.now();
      const value = await (typeof path === "string" ? this.#get(path) : path());
      durations[i] = (performance.now() - started) / 1000;
      return value;
    };
    const [active, history, markets, ...accounts] = await Promise.all([
      timed(`v1/private/orders/realtime?limit=${t.activeLimit}`, t.collaterals.length),
      timed(() => this.#history(), t.collaterals.length + 1),
      this.#markets === undefined || this.#marketsEveryScrape ? this.#get("v1/public/markets") : this.#markets,
      ...t.collaterals.map((c, i) => timed(`v1/private/account-info?collateralId=${c}`, i)),
    ]);
    this.#markets = markets as Raw[];
    return {
      account: t.account ?? "bench",
      accounts: accounts.map((body, i) => [t.collaterals[i]!, body as Raw]),
      active: active as Raw[],
      activeLimit: t.activeLimit,
      history: history as Raw[],
      historyLimit: t.historyLimit,
      markets: this.#markets,
      marketFamilies: this.#marketFamilies,
      durations,
    };
  }

  /** The floor plus the minimal renderer and gzip: the whole bound of one scrape, as sent (also by bound-server.ts). */
  async scrape(): Promise<Buffer> {
    const data = await this.fetch();
    this.#ids.read(data.account, [data.active, data.history]);
    this.#answer = gzipSync(Buffer.from(render({ ...data, outcomes: this.#ids })), { level: GZIP_LEVEL });
    return this.#answer;
  }
}

/** A plain template per series, lines joined per family, families joined: the minimal renderer. */
export function render(data: VenueData): string {
  const lines: string[][] = FAMILIES.map(() => []);
  venueSeries(data, (family, labels, value) => {
    if (Number.isNaN(value)) return;
    const names = FAMILIES[family]!.labelNames;
    const text = labels.map((v, i) => `${names[i]}="${escapeLabel(v)}"`).join(",");
    lines[family]!.push(`${FAMILIES[family]!.name}${text === "" ? "" : `{${text}}`} ${value}`);
  });
  return `${FAMILIES.map((f, i) => (lines[i]!.length === 0 ? "" : `# HELP ${f.name} ${f.help}\n# TYPE ${f.name} ${f.type}\n${lines[i]!.join("\n")}`))
    .filter((t) => t !== "")
    .join("\n")}\n`;
}
