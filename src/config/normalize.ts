// Makes a parsed layer safe to walk: bounded depth and size, plain objects and arrays only, and no
// keys that would reach JavaScript's object machinery (`__proto__`).
import type { KeyPath, ProblemList } from "./problems.ts";

/** Deeper than any real config; plugins included. Keeps every later walk linear and stack-safe. */
export const MAX_DEPTH = 64;
/** Values in one file, after alias expansion. */
export const MAX_NODES = 500_000;

const FORBIDDEN_KEYS = new Set(["__proto__"]);

export function normalizeLayer(data: Record<string, unknown>, out: ProblemList): Record<string, unknown> | undefined {
  let nodes = 0;
  let failed = false;
  const walk = (value: unknown, path: KeyPath, depth: number): unknown => {
    if (failed) return undefined;
    if (++nodes > MAX_NODES) {
      failed = true;
      out.error([], `the file holds more than ${MAX_NODES} values (alias expansion included); it was not read`);
      return undefined;
    }
    if (value === null || typeof value !== "object" || value instanceof Date) return value;
    if (depth >= MAX_DEPTH) {
      failed = true;
      out.error(path.slice(0, 8), `values are nested more than ${MAX_DEPTH} levels deep; the file was not read`);
      return undefined;
    }
    if (Array.isArray(value) || value instanceof Set) {
      return [...value].map((item, i) => walk(item, [...path, i], depth + 1));
    }
    const entries = value instanceof Map ? [...value.entries()].map(([k, v]) => [String(k), v] as const) : Object.entries(value);
    const result: Record<string, unknown> = {};
    for (const [key, inner] of entries) {
      if (FORBIDDEN_KEYS.has(key)) {
        out.error([...path, key], `'${key}' cannot be used as a key`);
        continue;
      }
      result[key] = walk(inner, [...path, key], depth + 1);
    }
    return result;
  };
  const result = walk(data, [], 0) as Record<string, unknown>;
  return failed ? undefined : result;
}
