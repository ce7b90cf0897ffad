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
