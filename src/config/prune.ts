// The merged config without its schema errors, so the semantic checks can still run (and report) on
// everything else. The problems themselves are reported as they are; only the copy checked further is cut.
import { checkValue } from "./check.ts";
import { KEYED_BLOCKS } from "./merge.ts";
import { type KeyPath, type Problem, ProblemList } from "./problems.ts";
import { AppConfigSchema } from "./schema.ts";

/** Removes the value at an error's path (or the smallest container that makes the rest well-typed). */
function removeAt(doc: Record<string, unknown>, parts: KeyPath, wholeEntry: boolean): void {
  const [top, entry] = parts;
  if (typeof top !== "string") return;
  if (wholeEntry || parts.length === 1) {
    if (KEYED_BLOCKS.has(top) && entry !== undefined) {
      const block = doc[top];
      if (block && typeof block === "object") delete (block as Record<string, unknown>)[String(entry)];
    } else {
      delete doc[top];
    }
    return;
  }
  // Arrays go as a whole (cut at the array's own key); otherwise the key itself, or its parent when the
  // key is a missing required field.
  const firstIndex = parts.findIndex((part) => typeof part === "number");
  const cut = firstIndex === -1 ? parts.length - 1 : firstIndex - 1;
  if (cut < 1) {
    delete doc[top];
    return;
  }
  let parent: unknown = doc;
  for (const part of parts.slice(0, cut)) parent = (parent as Record<string, unknown> | undefined)?.[part as string];
  if (!parent || typeof parent !== "object") return;
  const key = String(parts[cut]);
  if ((parent as Record<string, unknown>)[key] === undefined && cut > 0) removeAt(doc, parts.slice(0, cut), false);
  else delete (parent as Record<string, unknown>)[key];
}

/**
 * A copy of the merged document with every schema error removed, so the semantic checks can still run
 * (and report) on everything else: the whole entry for keyed maps (providers, models, ...), the single
 * value elsewhere, falling back to the whole top-level block when that is not enough.
 */
export function pruneSchemaErrors(doc: Record<string, unknown>, problems: Problem[]): Record<string, unknown> {
  const copy = structuredClone(doc);
  const errors = problems.filter((p) => p.severity === "error" && p.parts?.length);
  for (const p of errors) removeAt(copy, p.parts!, KEYED_BLOCKS.has(String(p.parts![0])));
  const recheck = new ProblemList();
  checkValue(AppConfigSchema, copy, [], recheck);
  for (const p of recheck.errors) if (p.parts?.length) removeAt(copy, p.parts.slice(0, 1), true);
  return copy;
}
