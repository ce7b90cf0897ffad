// The pin of a project's trust: SHA-256 over exactly the trust-relevant settings (canonical JSON of each
// item's key and values) and the bytes of the files they name (scripts, certificates), so that changing
// any of them asks again while the rest of the config (models, facets, ...) can change freely.
import { readFileSync, statSync } from "node:fs";
import { relative } from "node:path";
import type { TrustItem } from "./items.ts";

/** A file bigger than this is pinned by its size and modification time instead of its bytes. */
const MAX_HASHED_FILE_BYTES = 16 * 1024 * 1024;

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object" && !(value instanceof Date)) {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  }
  return value;
}

export function trustDigest(items: readonly TrustItem[], projectRoot: string): string {
  const hasher = new Bun.CryptoHasher("sha256");
  for (const item of items) {
    hasher.update(`item\0${item.kind}\0${item.key}\0${JSON.stringify(canonical(item.pin))}\0`);
    for (const file of item.files) {
      const shown = relative(projectRoot, file);
      try {
        const stat = statSync(file);
        if (!stat.isFile()) hasher.update(`notfile\0${shown}\0`);
        else if (stat.size > MAX_HASHED_FILE_BYTES) hasher.update(`big\0${shown}\0${stat.size}\0${stat.mtimeMs}\0`);
        else {
          hasher.update(`file\0${shown}\0${stat.size}\0`);
          hasher.update(readFileSync(file));
        }
      } catch {
        hasher.update(`missing\0${shown}\0`);
      }
    }
  }
  return `sha256:${hasher.digest("hex")}`;
}
