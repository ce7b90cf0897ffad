// Reads one context file (AGENTS.md, a skill, a facet) with `daemon.follow_symlinks_for_configs`
// honoured: a symlink is skipped with a warning when following is off.
import { lstatSync, readFileSync } from "node:fs";

/** Collects one warning per skipped or unreadable file; the session shows them as notices. */
export type ContextWarnings = string[];

/** Context files larger than this are cut, with a note, so one file cannot fill the context. */
export const MAX_CONTEXT_FILE_BYTES = 64 * 1024;

export function readContextFile(path: string, followSymlinks: boolean, warnings: ContextWarnings): string | null {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return null;
  }
  if (stat.isSymbolicLink() && !followSymlinks) {
    warnings.push(`skipped ${path}: it is a symlink and daemon.follow_symlinks_for_configs is off`);
    return null;
  }
  try {
    const text = readFileSync(path, "utf8");
    if (Buffer.byteLength(text) <= MAX_CONTEXT_FILE_BYTES) return text;
    return `${Buffer.from(text).subarray(0, MAX_CONTEXT_FILE_BYTES).toString("utf8")}\n[cut: ${path} is larger than ${MAX_CONTEXT_FILE_BYTES} bytes]`;
  } catch (error) {
    warnings.push(`skipped ${path}: ${(error as Error).message}`);
    return null;
  }
}
