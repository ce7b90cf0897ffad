// Project-relative paths in the config (facet/subagent sources, init scripts) must stay inside the
// project: no absolute paths, no `..` escapes, no symlinks that lead outside.
import { lstatSync, realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";

export type PathCheck =
  | { ok: true; absolute: string; symlink: boolean }
  | { ok: false; reason: string };

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** Checks that `path` names an existing file inside `projectRoot`. */
export function checkProjectFile(projectRoot: string, path: string, followSymlinks: boolean): PathCheck {
  if (path.includes("\0")) return { ok: false, reason: "contains a NUL byte" };
  if (isAbsolute(path)) return { ok: false, reason: "must be relative to the project, not absolute" };
  const root = resolve(projectRoot);
  const absolute = resolve(root, path);
  if (!inside(root, absolute)) return { ok: false, reason: "leads outside the project" };
  let stat;
  try {
    stat = lstatSync(absolute);
  } catch {
    return { ok: false, reason: `no such file in the project (${relative(root, absolute)})` };
  }
  let real: string;
  try {
    real = realpathSync(absolute);
  } catch {
    return { ok: false, reason: "is a broken symlink" };
  }
  let realRoot = root;
  try {
    realRoot = realpathSync(root);
  } catch {
    // The root itself is gone; the relative check above still holds.
  }
  if (!inside(realRoot, real)) return { ok: false, reason: "is a symlink that leads outside the project" };
  if (stat.isSymbolicLink() && !followSymlinks) {
    return { ok: false, reason: "is a symlink, and daemon.follow_symlinks_for_configs is off" };
  }
  return { ok: true, absolute, symlink: stat.isSymbolicLink() };
}
