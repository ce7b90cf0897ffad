// Puts files back to a restore point: the state before the first of the given turns. A file someone
// else changed since the agent did (after the turn ended, or between two of the turns) is a conflict:
// never overwritten unless asked (`force`), left as it is with `keep`, else the whole restore is refused.
import { chmodSync, rmSync } from "node:fs";
import { sameState, currentState, type BlobStore, type FileState } from "./blob-store.ts";
import type { TurnCheckpoint } from "./recorder.ts";
import { writeFileAtomic } from "../../util/atomic-write.ts";

export interface FilePlan {
  path: string;
  /** What the file goes back to; null: it did not exist. */
  target: FileState | null;
  /** Why restoring it would overwrite someone else's change; absent: no conflict. */
  conflict?: string;
}

/** Every file the turns changed, with its target and any conflict; turns oldest first. */
export function planRestore(turns: readonly TurnCheckpoint[]): FilePlan[] {
  const plans = new Map<string, FilePlan & { expected: FileState | null | undefined }>();
  for (const turn of turns) {
    for (const [path, before] of turn.before) {
      const known = plans.get(path);
      if (!known) plans.set(path, { path, target: before, expected: undefined });
      // Between two turns the file should be as the earlier one left it.
      else if (!known.conflict && known.expected !== undefined && !sameState(before, known.expected)) known.conflict = "changed by someone else between two of the turns";
      const plan = plans.get(path)!;
      if (!turn.after) {
        plan.expected = undefined;
        plan.conflict ??= "its turn never ended (the session was cut off), so the agent's last version is not known";
      } else plan.expected = turn.after.get(path) ?? null;
    }
  }
  return [...plans.values()].map(({ expected, ...plan }) => {
    if (plan.conflict || expected === undefined) return plan;
    const now = currentState(plan.path);
    if (sameState(now, plan.target)) return plan;
    if (!sameState(now, expected)) return { ...plan, conflict: now === null ? "deleted since the agent changed it" : "changed since the agent changed it" };
    return plan;
  });
}

/**
 * Writes the targets (conflicts only with `force`, skipped with `keep`); returns what was restored and
 * what was kept. Every copy is read (and checked) before the first file is touched.
 */
export function applyRestore(plans: readonly FilePlan[], blobs: BlobStore, choice: "force" | "keep"): { restored: string[]; kept: string[] } {
  const keeps = (p: FilePlan) => p.conflict && choice === "keep";
  const kept = plans.filter(keeps).map((p) => p.path);
  const toRestore = plans.filter((p) => !keeps(p)).map((p) => ({ plan: p, bytes: p.target ? blobs.get(p.target) : null }));
  const restored: string[] = [];
  for (const { plan, bytes } of toRestore) {
    const now = currentState(plan.path);
    if (sameState(now, plan.target) && (plan.target === null || (now !== "other" && now !== null && now.mode === plan.target.mode))) {
      restored.push(plan.path);
      continue;
    }
    if (plan.target === null || bytes === null) {
      if (now !== "other") rmSync(plan.path, { force: true });
    } else {
      writeFileAtomic(plan.path, bytes, plan.target.mode);
      chmodSync(plan.path, plan.target.mode);
    }
    restored.push(plan.path);
  }
  return { restored, kept };
}
