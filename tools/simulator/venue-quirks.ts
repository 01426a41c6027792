// Venue quirks the reference leaves open, as faults that compose: history paging that ignores offset
// or limit, overlaps or sends more than asked; strings with lone surrogates; unset order times; empty
// rejection reasons on orders that were not rejected.
import { type FaultKind, QUIRK_KINDS, type QuirkKind, type VenueAnswer } from "./types.js";

export function isQuirk(kind: FaultKind): kind is QuirkKind {
  return (QUIRK_KINDS as readonly FaultKind[]).includes(kind);
}

/** The history quirks only make sense on the history endpoint. */
export const HISTORY_QUIRKS: ReadonlySet<FaultKind> = new Set(QUIRK_KINDS.filter((k) => k.startsWith("history_")));

/** Far more than any simulated history: a venue that ignores limit answers all of it. */
const ALL = 999_999_999;
const HISTORY_DEFAULT_LIMIT = 25;

/** The history request a venue with these quirks actually serves, as the URL the responder reads. */
export function historyTarget(url: URL, quirks: readonly QuirkKind[]): URL {
  if (!quirks.some((q) => HISTORY_QUIRKS.has(q))) return url;
  const out = new URL(url);
  const asked = (name: string, fallback: number): number => {
    const raw = url.searchParams.get(name);
    return raw !== null && /^\d{1,15}$/.test(raw) ? Number(raw) : fallback;
  };
  let offset = asked("offset", 0);
  let limit = asked("limit", HISTORY_DEFAULT_LIMIT);
  // Each page starts half a page before the offset asked: every page repeats orders already sent.
  if (quirks.includes("history_overlaps")) offset = Math.max(0, offset - Math.max(1, Math.floor(limit / 2)));
  if (quirks.includes("history_ignores_offset")) offset = 0;
  if (quirks.includes("history_more_than_limit")) limit += Math.max(1, Math.floor(limit / 2));
  if (quirks.includes("history_ignores_limit")) limit = ALL;
  out.searchParams.set("offset", String(offset));
  out.searchParams.set("limit", String(limit));
  return out;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Two lone surrogates that both become U+FFFD, and an emoji sitting across a 128-unit cut. */
const LONE = ["\ud800", "\udbff"] as const;
const ACROSS_CUT = `${"x".repeat(127)}\u{1F600} (a surrogate pair at the 128th unit)`;

/** Order market ids and position market ids alternate lone surrogates; markets gain a twin whose id differs by one. */
function oddStrings(value: unknown): unknown {
  if (Array.isArray(value)) {
    const out = value.map((item, i) => {
      if (!isObject(item)) return item;
      if ("marketId" in item) return { ...item, marketId: `${String(item.marketId)}${LONE[i % 2]}` };
      if ("settings" in item && "id" in item) return { ...item, id: `${String(item.id)}${LONE[0]}`, name: i === 0 ? ACROSS_CUT : item.name };
      return item;
    });
    const first = value[0];
    // A market whose id, once made well-formed, is the first one's: the exporter keeps the first.
    if (isObject(first) && "settings" in first && "id" in first) out.push({ ...first, id: `${String(first.id)}${LONE[1]}` });
    return out;
  }
  if (isObject(value) && Array.isArray(value.positions)) return { ...value, positions: oddStrings(value.positions) };
  return value;
}

/** Of every four orders: createdAt 0, createdAt -1, createdAt absent, one left as it was; updatedAt 0 on half. */
function unsetTimes(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((item, i) => {
    if (!isObject(item) || !("createdAt" in item)) return item;
    const { createdAt, ...rest } = item;
    const updated = i % 2 === 0 ? { updatedAt: 0 } : {};
    switch (i % 4) {
      case 0:
        return { ...rest, createdAt: 0, ...updated };
      case 1:
        return { ...rest, createdAt: -1, ...updated };
      case 2:
        return { ...rest, ...updated };
      default:
        return { ...rest, createdAt, ...updated };
    }
  });
}

/** Every order without a rejection reason gets an empty one, as a venue may write "not rejected". */
function emptyRejections(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((item) =>
    isObject(item) && "createdAt" in item && item.rejectionReason === undefined ? { ...item, rejectionReason: { code: "", message: "" } } : item,
  );
}

/** The answer with the body quirks applied (a new body); the answer itself when none applies. */
export function quirkyAnswer(answer: VenueAnswer, quirks: readonly QuirkKind[]): VenueAnswer {
  const odd = quirks.includes("odd_strings");
  const unset = quirks.includes("unset_times");
  const empty = quirks.includes("empty_rejections");
  if ((!odd && !unset && !empty) || answer.status !== 200) return answer;
  const value = (): unknown => {
    let v = answer.value();
    if (empty) v = emptyRejections(v);
    if (unset) v = unsetTimes(v);
    if (odd) v = oddStrings(v);
    return v;
  };
  return { status: answer.status, body: Buffer.from(JSON.stringify(value())), value };
}
