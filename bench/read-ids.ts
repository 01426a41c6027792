// `npm run bench:redact`: what reading the venue's strings and numbers costs with secrets configured, per
// value, on 50,000 strings like one scrape's. readId (every id and label: the plain and the escaped forms)
// is set beside redactKnown (the plain form alone), on strings with no escapable character (what venues send)
// and on strings that all hold one; readNumber with no key of digits and with one. Median of ROUNDS rounds,
// the rows taking turns in each.

import { Redactor } from "../src/util/redact.js";
import { VenueFields } from "../src/venue/fields.js";
import { percentile } from "./measure.js";
import { table } from "./shared.js";

/** Rounds per row: `npm run bench:redact -- 200` for a steadier figure. */
const ROUNDS = Number(process.argv[2] ?? 60);
const COUNT = 50_000;

const STATUSES = ["NEW", "PARTIALLY_FILLED", "FILLED", "CANCELLED", "REJECTED", "LONG", "SHORT", "LIMIT", "MARKET", "BUY", "SELL"];
/** Market ids, statuses and sides, and order ids of 19 digits, in the mix of an order list. */
const plain = Array.from({ length: COUNT }, (_, i) => {
  if (i % 4 === 0) return `${1_800_000_000_000_000_000n + BigInt(i) * 7919n}`;
  if (i % 4 === 1) return ["BTC-USD", "ETH-USD", "SOL-USD", "DOGE-USD"][i % 4]!;
  return STATUSES[i % STATUSES.length]!;
});
const escapable = plain.map((s, i) => (i % 2 === 0 ? `${s} "quoted"` : `${s}\nline`));
/** Times in milliseconds, and prices and sizes as a venue writes them (a few decimals), parsed. */
const numbers = Array.from({ length: COUNT }, (_, i) => (i % 3 === 0 ? 1_700_000_000_000 + i * 1000 : Number(((i * 37) / 100).toFixed(2))));

interface Row {
  values: string;
  read: string;
  run: () => number;
}

/** Runs `read` over `values` once and returns its nanoseconds per value. */
function timing<T>(values: readonly T[], read: (value: T) => unknown): () => number {
  return () => {
    const started = process.hrtime.bigint();
    let kept = 0;
    for (const value of values) if (read(value) !== undefined) kept++;
    if (kept < 0) throw new Error("unreachable");
    return Number(process.hrtime.bigint() - started) / values.length;
  };
}

/** Each row's median over ROUNDS rounds, the rows taking turns in every round so that the machine's load falls on all alike. */
function medians(rows: readonly Row[]): number[] {
  const times = rows.map(() => [] as number[]);
  for (let r = 0; r < ROUNDS; r++) rows.forEach((row, i) => times[i]!.push(row.run()));
  return times.map((t) => percentile(t, 50));
}

// An account's credentials as the service adds them: an API key, a bearer token, basic auth's pair, an extra header.
const redactor = new Redactor();
const fields = new VenueFields(redactor);
const redactKnown = (text: string) => redactor.known(text);
const readId = (value: unknown) => fields.id(value);
const readNumber = fields.number;
redactor.hold(["9f2c4e7a1b3d5f6e8a0c2e4f6a8b0d1e3f5a7c9e", "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXRva2Vu.sig-part", "desk:pa55w0rd-long-one", "tenant-42"]);
const strings: Row[] = [
  { values: "no escapable character", read: "redactKnown", run: timing(plain, redactKnown) },
  { values: "no escapable character", read: "readId", run: timing(plain, readId) },
  { values: "each with a quote or line feed", read: "redactKnown", run: timing(escapable, redactKnown) },
  { values: "each with a quote or line feed", read: "readId", run: timing(escapable, readId) },
  { values: "numbers, no key of digits", read: "readNumber", run: timing(numbers, readNumber) },
];
const first = medians(strings);
// A key of digits is kept once added, so its row is measured after the others.
redactor.hold(["836204719365"]);
const digits: Row[] = [{ values: "numbers, a key of digits", read: "readNumber", run: timing(numbers, readNumber) }];
const ns = [...first, ...medians(digits)];
console.log(`${COUNT} values per round, median of ${ROUNDS} rounds, Node ${process.version}`);
console.log(table([["values", "read", "ns per value"], ...[...strings, ...digits].map((row, i) => [row.values, row.read, ns[i]!.toFixed(1)])]));
