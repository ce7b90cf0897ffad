// Reading a parsed config document (plain maps and arrays, as written) without trusting its shape.

export type Doc = Record<string, unknown>;

export function isMap(v: unknown): v is Doc {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

export function at(doc: unknown, ...path: string[]): unknown {
  let here = doc;
  for (const key of path) here = isMap(here) ? here[key] : undefined;
  return here;
}

/**
 * A value as written, for a message. Never `String(v)` on a parsed map: one with a `toString` key
 * (`{ toString: 1 }`) makes that throw.
 */
export function text(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === null || v === undefined || typeof v !== "object") return String(v);
  return JSON.stringify(v) ?? "?";
}
