// The part of the file catalog a glob or grep call covers: a directory (or file) and a name pattern.
// Links leading out of the project are never searched: the catalog leaves them out, and the results
// name the ones in scope so the model knows they were skipped.
import { statSync } from "node:fs";
import { join } from "node:path";
import { AGENTBLOCK_FILE, createBlockChecker } from "./agentblock.ts";
import type { CatalogSnapshot } from "./file-catalog.ts";
import { displayPath, isInside, realish, resolveToolPath } from "./paths.ts";
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
  if (!isInside(realish(ctx.projectRoot), realish(absolute))) {
    return { ok: false, message: `\`${shown}\` leads outside the project through a symlink; glob and grep search the project's files only, so it was not searched.` };
  }
  let single = false;
  try {
    single = !statSync(absolute).isDirectory();
  } catch {
    return { ok: false, message: `No such directory: \`${shown}\`. Use glob with a broader path to find it.` };
  }
  return { ok: true, prefix: shown === "." ? "" : shown, single, root: ctx.projectRoot, ...(ctx.isSecretFile ? { isSecretFile: ctx.isSecretFile } : {}) };
}

type ScopeShape = { prefix: string; single: boolean; root?: string; isSecretFile?: (absolute: string) => boolean };

/** The catalog paths under the scope, each with its path relative to the scope. */
function under(paths: readonly string[], scope: ScopeShape): { path: string; local: string }[] {
  if (scope.prefix === "") return paths.map((path) => ({ path, local: path }));
  if (scope.single) return paths.includes(scope.prefix) ? [{ path: scope.prefix, local: scope.prefix.split("/").pop()! }] : [];
  const head = `${scope.prefix}/`;
  return paths.filter((f) => f.startsWith(head)).map((path) => ({ path, local: path.slice(head.length) }));
}

/**
 * Catalog paths under the scope, each with its path relative to the scope; secret and `.agentblock`ed
 * files are left out, symlinked ones also when what they lead to is secret or blocked.
 */
export function inScope(snapshot: Pick<CatalogSnapshot, "files" | "links">, scope: ScopeShape): { path: string; local: string }[] {
  const { files, links } = snapshot;
  let found = under(files, scope);
  const secret = scope.isSecretFile;
  if (secret && scope.root) {
    const root = scope.root;
    found = found.filter((f) => !secret(join(root, f.path)));
  }
  // Files under an `.agentblock` are listed in the catalog together with it (an ignored directory hides
  // both), so a catalog without one needs no checks but of the links, whose targets may lie anywhere.
  if (!scope.root) return found;
  const root = scope.root;
  const anyBlock = files.some((f) => f === AGENTBLOCK_FILE || f.endsWith(`/${AGENTBLOCK_FILE}`));
  if (!anyBlock && Object.keys(links).length === 0) return found;
  const blocked = createBlockChecker(root);
  return found.filter((f) => {
    const absolute = join(root, f.path);
    const real = links[f.path];
    if (real === undefined) return !anyBlock || blocked(absolute, absolute) === undefined;
    return blocked(absolute, real) === undefined;
  });
}

/** The note a result carries when links out of the project lay in the scope: they were not searched. */
export function outsideLinksNote(snapshot: Pick<CatalogSnapshot, "outsideLinks">, scope: ScopeShape, match: (local: string) => boolean): string | undefined {
  const skipped = under(snapshot.outsideLinks, scope)
    .filter((f) => match(f.local))
    .map((f) => f.path);
  if (skipped.length === 0) return undefined;
  const named = skipped.slice(0, 10).map((p) => `\`${p}\``).join(", ");
  const more = skipped.length > 10 ? ` and ${skipped.length - 10} more` : "";
  return `[skipped ${skipped.length} symlink${skipped.length === 1 ? "" : "s"} leading outside the project: ${named}${more}. glob and grep search the project's own files only.]`;
}

/** A name matcher: patterns without `/` match the base name at any depth. */
export function globMatcher(pattern: string): (local: string) => boolean {
  const glob = new Bun.Glob(pattern.replace(/^\.\//, ""));
  if (pattern.includes("/")) return (local) => glob.match(local);
  return (local) => glob.match(local.slice(local.lastIndexOf("/") + 1));
}
