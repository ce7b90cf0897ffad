// Where a tool path points: resolved against cwd, shown to the model relative to the project.
import { realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import type { ToolContext } from "./tool.ts";

export function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

export function resolveToolPath(ctx: Pick<ToolContext, "cwd">, path: string): string {
  return resolve(ctx.cwd, path);
}

/** Project-relative with forward slashes when inside the project, else absolute. */
export function displayPath(ctx: Pick<ToolContext, "projectRoot">, absolute: string): string {
  const root = resolve(ctx.projectRoot);
  if (!isInside(root, absolute)) return absolute;
  const rel = relative(root, absolute);
  return rel === "" ? "." : rel.split(sep).join("/");
}

/** The real path of `absolute`, or of its nearest existing ancestor joined with the rest. */
export function realish(absolute: string): string {
  let current = absolute;
  const rest: string[] = [];
  for (;;) {
    try {
      return resolve(realpathSync(current), ...rest.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return absolute;
      rest.push(current.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
      current = parent;
    }
  }
}

/**
 * Why a tool may not change `absolute`, or undefined when it may: writes stay inside the project,
 * including through symlinks.
 */
export function writeRefusal(ctx: Pick<ToolContext, "projectRoot">, absolute: string, shown: string): string | undefined {
  if (absolute.includes("\0")) return `The path \`${shown}\` contains a NUL byte.`;
  const root = resolve(ctx.projectRoot);
  const outside = `\`${shown}\` is outside the project (${root}); file tools only change files inside the project.`;
  if (!isInside(root, absolute)) return outside;
  if (!isInside(realish(root), realish(absolute))) {
    return `\`${shown}\` leads outside the project through a symlink; file tools only change files inside the project.`;
  }
  return undefined;
}
