// The part of the file catalog a glob or grep call covers: a directory (or file) and a name pattern.
import { statSync } from "node:fs";
import { join } from "node:path";
import { AGENTBLOCK_FILE, createBlockChecker } from "./agentblock.ts";
import { displayPath, isInside, resolveToolPath } from "./paths.ts";
import type { ToolContext } from "./tool.ts";

export type Scope =
  | { ok: true; prefix: string; single: boolean; root: string; isSecretFile?: (absolute: string) => boolean }
  | { ok: false; message: string };

/** Resolves `path` to a project-relative prefix; searching outside the project is not possible. */
export function searchScope(ctx: ToolContext, path: string | undefined): Scope {
  const absolute = resolveToolPath(ctx, path ?? ".");
  const shown = displayPath(ctx, absolute);
  if (!isInside(ctx.projectRoot, absolute)) {
    return { ok: false, message: `\`${shown}\` is outside the project; glob and grep search the project's files only. Use the shell for other places.` };
  }
  let single = false;
  try {
    single = !statSync(absolute).isDirectory();
  } catch {
    return { ok: false, message: `No such directory: \`${shown}\`. Use glob with a broader path to find it.` };
  }
  return { ok: true, prefix: shown === "." ? "" : shown, single, root: ctx.projectRoot, ...(ctx.isSecretFile ? { isSecretFile: ctx.isSecretFile } : {}) };
}

/** Catalog paths under the scope, each with its path relative to the scope; secret and `.agentblock`ed files are left out. */
export function inScope(
  files: readonly string[],
  scope: { prefix: string; single: boolean; root?: string; isSecretFile?: (absolute: string) => boolean },
): { path: string; local: string }[] {
  let found: { path: string; local: string }[];
  if (scope.prefix === "") found = files.map((path) => ({ path, local: path }));
  else if (scope.single) found = files.includes(scope.prefix) ? [{ path: scope.prefix, local: scope.prefix.split("/").pop()! }] : [];
  else {
    const head = `${scope.prefix}/`;
    found = files.filter((f) => f.startsWith(head)).map((path) => ({ path, local: path.slice(head.length) }));
  }
  const secret = scope.isSecretFile;
  if (secret && scope.root) {
    const root = scope.root;
    found = found.filter((f) => !secret(join(root, f.path)));
  }
  // Files under an `.agentblock` are listed in the catalog together with it (an ignored directory hides
  // both), so a catalog without one needs no checks.
  if (!scope.root || !files.some((f) => f === AGENTBLOCK_FILE || f.endsWith(`/${AGENTBLOCK_FILE}`))) return found;
  const root = scope.root;
  const blocked = createBlockChecker(root);
  return found.filter((f) => blocked(join(root, f.path)) === undefined);
}

/** A name matcher: patterns without `/` match the base name at any depth. */
export function globMatcher(pattern: string): (local: string) => boolean {
  const glob = new Bun.Glob(pattern.replace(/^\.\//, ""));
  if (pattern.includes("/")) return (local) => glob.match(local);
  return (local) => glob.match(local.slice(local.lastIndexOf("/") + 1));
}
