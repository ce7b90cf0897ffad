// Layer merge: maps merge by key; scalars and arrays from the later layer replace; `null` erases.
// Also records which layer set each key, for `config show --effective`.
import { isMap } from "./doc.ts";
import { formatPath, type KeyPath, type ProblemList } from "./problems.ts";

export type LayerName = "global" | "project";

/** Blocks only the global layer may set (spec rule 2). */
export const GLOBAL_ONLY_BLOCKS = ["data", "updates", "telemetry"] as const;


/** Removes the global-only blocks from a project layer, reporting each key it tried to set or erase. */
export function enforceGlobalAuthority(project: Record<string, unknown>, out: ProblemList): Record<string, unknown> {
  const kept = { ...project };
  for (const block of GLOBAL_ONLY_BLOCKS) {
    if (!(block in kept)) continue;
    const value = kept[block];
    delete kept[block];
    if (value === null) {
      out.error([block], `a project config may not erase '${block}'; it can only be set in the global config`);
    } else if (isMap(value)) {
      for (const key of Object.keys(value)) {
        const verb = value[key] === null ? "erase" : "set";
        out.error([block, key], `a project config may not ${verb} keys inside '${block}'; set it in the global config`);
      }
    } else {
      out.error([block], `a project config may not set '${block}'; it can only be set in the global config`);
    }
  }
  return kept;
}

/** Map blocks whose entries are handled as a whole (pruned when invalid, left out while untrusted). */
export const KEYED_BLOCKS: ReadonlySet<string> = new Set(["providers", "models", "mcp_servers", "facets", "subagents", "plugins"]);

export type Origins = Map<string, LayerName>;

function recordOrigins(value: unknown, path: KeyPath, layer: LayerName, origins: Origins): void {
  if (isMap(value) && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) recordOrigins(v, [...path, k], layer, origins);
  } else {
    origins.set(formatPath(path), layer);
  }
}

function forgetOrigins(path: KeyPath, origins: Origins): void {
  const prefix = formatPath(path);
  for (const key of [...origins.keys()]) {
    if (key === prefix || key.startsWith(`${prefix}.`) || key.startsWith(`${prefix}[`)) origins.delete(key);
  }
}

/** Merges `upper` over `lower` (both already validated as maps at the top). */
export function mergeLayers(
  lower: Record<string, unknown>,
  upper: Record<string, unknown>,
  layer: LayerName,
  origins: Origins,
  path: KeyPath = [],
): Record<string, unknown> {
  const result: Record<string, unknown> = { ...lower };
  for (const [key, value] of Object.entries(upper)) {
    const here = [...path, key];
    if (value === null) {
      delete result[key];
      forgetOrigins(here, origins);
    } else if (isMap(value) && isMap(result[key])) {
      result[key] = mergeLayers(result[key] as Record<string, unknown>, value, layer, origins, here);
    } else {
      forgetOrigins(here, origins);
      result[key] = value;
      recordOrigins(value, here, layer, origins);
    }
  }
  return result;
}

/** Drops null values of a single layer: in one file `null` and an absent key both mean unset. */
export function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (isMap(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = dropNulls(v);
    return out;
  }
  return value;
}
