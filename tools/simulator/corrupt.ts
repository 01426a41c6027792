// Pure transforms that damage a correct JSON value for the wrong_types, missing_fields and wrong_container faults.

type Json = unknown;

const NUMERIC_STRING = /^-?\d+(\.\d+)?$/;
/** Replacements for numeric values, rotated so every kind of garbage shows up. */
const GARBAGE: readonly Json[] = [true, "abc", {}, "NaN", "", false, "1,5", null, [], "Infinity"];

function isNumeric(value: Json): boolean {
  return typeof value === "number" || (typeof value === "string" && NUMERIC_STRING.test(value));
}

function isRecord(value: Json): value is Record<string, Json> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every number and numeric string (at any depth) becomes a boolean, object, null or garbage string. */
export function wrongTypes(value: Json): Json {
  let turn = 0;
  const walk = (v: Json): Json => {
    if (Array.isArray(v)) return v.map(walk);
    if (!isRecord(v)) return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, isNumeric(x) ? GARBAGE[turn++ % GARBAGE.length] : walk(x)]));
  };
  return walk(value);
}

/** Every number and string field (amounts, prices, ids, labels) is dropped, at any depth; containers stay. */
export function missingFields(value: Json): Json {
  const walk = (v: Json): Json => {
    if (Array.isArray(v)) return v.map(walk);
    if (!isRecord(v)) return v;
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, x]) => typeof x !== "number" && typeof x !== "string")
        .map(([k, x]) => [k, walk(x)]),
    );
  };
  return walk(value);
}

/** An object where an array is expected (the array wrapped in an envelope) and an array where an object is. */
export function wrongContainer(value: Json): Json {
  return Array.isArray(value) ? { data: value, count: value.length } : [value];
}
