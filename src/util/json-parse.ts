// JSON.parse that keeps the event loop breathing: a large top-level array is parsed element by
// element, yielding between slices, so a 30 MB order list never blocks other scrapes for long.

/** Bodies below this are parsed in one go: the pause is shorter than a yield would save. */
const CHUNKED_FROM = 1 << 20;
/** Work between yields, in milliseconds. */
const SLICE_MS = 8;

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function skipSpace(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
    i++;
  }
  return i;
}

/** Index just past the string that starts at `i` (a quote). */
function skipString(text: string, i: number): number {
  let j = i + 1;
  for (;;) {
    j = text.indexOf('"', j);
    if (j === -1) throw new SyntaxError("unterminated string");
    let backslashes = 0;
    for (let k = j - 1; text.charCodeAt(k) === 92; k--) backslashes++;
    if (backslashes % 2 === 0) return j + 1;
    j++;
  }
}

async function parseArrayInSlices(text: string, open: number): Promise<unknown[]> {
  const out: unknown[] = [];
  let depth = 0;
  let start = open + 1;
  let i = start;
  let deadline = performance.now() + SLICE_MS;
  const element = (end: number): void => {
    const slice = text.slice(start, end);
    if (slice.trim() === "") {
      // only "[]" may have an empty element
      if (out.length > 0 || text.charCodeAt(end) !== 93) throw new SyntaxError("empty array element");
    } else {
      out.push(JSON.parse(slice));
    }
    start = end + 1;
  };
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = skipString(text, i);
      continue;
    }
    if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      if (depth === 0) {
        if (c !== 93) throw new SyntaxError("unbalanced brace");
        element(i);
        if (skipSpace(text, i + 1) !== text.length) throw new SyntaxError("text after the array");
        return out;
      }
      depth--;
    } else if (c === 44 && depth === 0) {
      element(i);
    }
    i++;
    if ((i & 0x3fff) === 0 && performance.now() > deadline) {
      await yieldToLoop();
      deadline = performance.now() + SLICE_MS;
    }
  }
  throw new SyntaxError("unterminated array");
}

/** Parses JSON text; throws SyntaxError like JSON.parse on anything that is not JSON. */
export async function parseJson(text: string): Promise<unknown> {
  if (text.length < CHUNKED_FROM) return JSON.parse(text);
  const open = skipSpace(text, 0);
  if (text.charCodeAt(open) !== 91) return JSON.parse(text);
  return parseArrayInSlices(text, open);
}
