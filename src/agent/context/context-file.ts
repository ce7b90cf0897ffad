// Reads one context file (AGENTS.md, a skill, a facet, a subagent, the project variables). A project's
// files are read only where they really are inside the project: a cloned repository must not link its
// AGENTS.md to ~/.ssh/id_rsa and so put the key into the first request. The user's own (global) files
// may link anywhere. `daemon.follow_symlinks_for_configs` off skips every symlinked file.
import { lstatSync, readFileSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";

/** Collects one warning per skipped or unreadable file; the session shows them as notices. */
export type ContextWarnings = string[];

/** Context files larger than this are cut, with a note, so one file cannot fill the context. */
export const MAX_CONTEXT_FILE_BYTES = 64 * 1024;

/** The project a `.agent/` directory configures: `.agent/` sits at the project root (config/files.ts). */
export function projectOfAgentDir(agentDir: string): string {
  return dirname(agentDir);
}

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * The file's text, or why it is not read (null: there is no such file). `within`: the root the file's
 * real path must stay in (the project or repository root for project files, null for the user's own).
 */
export function loadContextFile(path: string, followSymlinks: boolean, within: string | null): { text: string } | { problem: string } | null {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return null;
  }
  if (stat.isSymbolicLink() && !followSymlinks) return { problem: "it is a symlink and daemon.follow_symlinks_for_configs is off" };
  let real: string;
  try {
    real = realpathSync(path);
  } catch (error) {
    return { problem: (error as Error).message };
  }
  if (within !== null) {
    let root = resolve(within);
    try {
      root = realpathSync(root);
    } catch {
      // The root is gone; its path as given is what the file must stay in.
    }
    // The link itself or a linked directory on the way (`.agent/skills -> ~/notes`) counts alike.
    if (!inside(root, real)) return { problem: `it leads outside the project through a symlink (to ${real}); a project's context files are read only from inside it` };
  }
  try {
    // The real path, so a link swapped after the check cannot lead elsewhere.
    const text = readFileSync(real, "utf8");
    if (Buffer.byteLength(text) <= MAX_CONTEXT_FILE_BYTES) return { text };
    return { text: `${Buffer.from(text).subarray(0, MAX_CONTEXT_FILE_BYTES).toString("utf8")}\n[cut: ${path} is larger than ${MAX_CONTEXT_FILE_BYTES} bytes]` };
  } catch (error) {
    return { problem: (error as Error).message };
  }
}

/** The file's text; null when it is absent or skipped (then one warning names the file and why). */
export function readContextFile(path: string, followSymlinks: boolean, within: string | null, warnings: ContextWarnings): string | null {
  const read = loadContextFile(path, followSymlinks, within);
  if (read === null) return null;
  if ("problem" in read) {
    warnings.push(`skipped ${path}: ${read.problem}`);
    return null;
  }
  return read.text;
}
