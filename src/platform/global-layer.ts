// The global config file as written, for code that runs outside a command's own config load (the launch
// check after a command, the crash handler): the full loader would run the config's `$(command)`
// substitutions once more. Values are as written: a `${VAR}` or `$(...)` reference is not resolved.
import { readFileSync } from "node:fs";
import type { TSchema, Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { findConfigIn, globalConfigDir } from "../config/files.ts";
import { formatOf, isParseFailure, parseConfigText } from "../config/parse.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** The global layer's top-level map, or null when there is none or it cannot be read or parsed. */
export function readGlobalLayer(env: Env): Record<string, unknown> | null {
  try {
    const found = findConfigIn(globalConfigDir(env));
    if (found.kind !== "one") return null;
    const format = formatOf(found.path);
    if (!format) return null;
    const parsed = parseConfigText(found.path, readFileSync(found.path, "utf8").replace(/^\uFEFF/, ""), format);
    if (isParseFailure(parsed)) return null;
    const data = parsed.data;
    return data !== null && typeof data === "object" && !Array.isArray(data) ? (data as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** One top-level block of the global layer when it is valid against its schema, else null. */
export function globalBlock<S extends TSchema>(layer: Record<string, unknown> | null, name: string, schema: S): Static<S> | null {
  const block = layer?.[name];
  return block !== null && typeof block === "object" && Value.Check(schema, block) ? (block as Static<S>) : null;
}

/** Literal secrets the global layer holds: `permissions.secret_words` and static provider keys written out. */
export function literalSecrets(layer: Record<string, unknown> | null): string[] {
  const out: string[] = [];
  const words = (layer?.permissions as { secret_words?: unknown } | undefined)?.secret_words;
  if (Array.isArray(words)) for (const w of words) if (typeof w === "string") out.push(w);
  const providers = layer?.providers;
  if (providers && typeof providers === "object") {
    for (const p of Object.values(providers as Record<string, { auth?: { key?: unknown } }>)) {
      const key = p?.auth?.key;
      if (typeof key === "string" && !key.includes("$")) out.push(key.trim());
    }
  }
  return out.filter((s) => s.length >= 4);
}
