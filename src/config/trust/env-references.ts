// A project value that reads the environment (`${VAR}`) would carry what the variable holds wherever the
// value goes: a model name, a stop sequence or a header is sent to a provider, a prompt to the model. So
// outside the other trust items (which are left out whole until trusted) such a value waits for trust too,
// with the smallest entry that holds it: no project-set string carries an environment value off the machine
// before the user agrees.
import { GLOBAL_ONLY_BLOCKS, KEYED_BLOCKS } from "../merge.ts";
import { formatPath } from "../problems.ts";
import { envReferences } from "../substitute.ts";
import { at, isMap } from "../doc.ts";
import type { TrustInput, TrustItem } from "./items.ts";

/** What is left out for a value at `path`: a keyed entry whole, an array whole, else the value's key. */
function holder(path: (string | number)[]): string[] {
  if (KEYED_BLOCKS.has(String(path[0])) && path.length >= 2) return path.slice(0, 2).map(String);
  const firstIndex = path.findIndex((p) => typeof p === "number");
  return (firstIndex === -1 ? path : path.slice(0, firstIndex)).map(String);
}

function collect(value: unknown, path: (string | number)[], found: { path: (string | number)[]; names: string[] }[]): void {
  if (typeof value === "string") {
    const names = envReferences(value);
    if (names.length) found.push({ path, names });
  } else if (Array.isArray(value)) value.forEach((v, i) => collect(v, [...path, i], found));
  else if (isMap(value)) for (const [k, v] of Object.entries(value)) collect(v, [...path, k], found);
}

const within = (path: readonly (string | number)[], prefix: readonly string[]) => prefix.length <= path.length && prefix.every((p, i) => String(path[i]) === p);

/** One item per entry holding `${VAR}` references that no other item already leaves out. */
export function environmentReferences(input: TrustInput, items: TrustItem[]): void {
  if (!isMap(input.projectRaw)) return;
  const found: { path: (string | number)[]; names: string[] }[] = [];
  for (const [key, value] of Object.entries(input.projectRaw)) {
    // Global-only blocks are dropped from a project layer anyway (with an error).
    if ((GLOBAL_ONLY_BLOCKS as readonly string[]).includes(key)) continue;
    collect(value, [key], found);
  }
  const covered = items.flatMap((i) => i.remove.filter((r) => r.layer === "project").map((r) => r.path));
  const byHolder = new Map<string, { path: string[]; names: Set<string> }>();
  for (const ref of found) {
    if (covered.some((c) => within(ref.path, c))) continue;
    const path = holder(ref.path);
    const key = formatPath(path);
    const entry = byHolder.get(key) ?? { path, names: new Set<string>() };
    for (const n of ref.names) entry.names.add(n);
    byHolder.set(key, entry);
  }
  for (const [key, { path, names }] of byHolder) {
    items.push({
      kind: "environment",
      key,
      shown: `${key} reads your environment (${[...names].sort().join(", ")})`,
      pin: { path, value: at(input.projectRaw, ...path) },
      files: [],
      remove: [{ layer: "project", path }],
    });
  }
}
