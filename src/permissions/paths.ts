// Path patterns of rules and `secret_files`: globs resolved to absolute patterns. `~` is the home
// directory, a relative pattern is anchored at the project root, and a pattern without a slash (`.env`,
// `*.pem`) matches that name in any directory. A pattern ending in `/**` also matches the directory.
import { realish } from "../tools/paths.ts";
import { isAbsolute, relative, resolve, sep } from "node:path";

/** Escapes glob metacharacters so a literal path can be embedded in a pattern. */
export function escapeGlob(path: string): string {
  return path.replace(/[\\*?[\]{}!]/g, (c) => `\\${c}`);
}

export interface PatternBase {
  projectRoot: string;
  home: string;
}

/** The absolute glob patterns `pattern` stands for (the project root as given and as its real path). */
export function resolvePattern(pattern: string, base: PatternBase): string[] {
  if (pattern === "~" || pattern.startsWith("~/")) return [escapeGlob(base.home) + pattern.slice(1)];
  if (pattern.startsWith("/")) return [pattern];
  if (!pattern.includes("/")) return [`**/${pattern}`];
  const rest = pattern.replace(/^\.\//, "");
  const roots = new Set([resolve(base.projectRoot), realPath(resolve(base.projectRoot))]);
  return [...roots].map((root) => `${escapeGlob(root === "/" ? "" : root)}/${rest}`);
}

export class PathPattern {
  private readonly globs: { glob: Bun.Glob; dir: Bun.Glob | null }[];
  /** True when the pattern names one file (no wildcard), e.g. a rule added by "allow always". */
  readonly literal: boolean;

  constructor(
    readonly pattern: string,
    base: PatternBase,
  ) {
    this.literal = !/(^|[^\\])[*?[\]{}]/.test(pattern);
    this.globs = resolvePattern(pattern, base).map((p) => ({ glob: new Bun.Glob(p), dir: p.endsWith("/**") ? new Bun.Glob(p.slice(0, -3)) : null }));
  }

  matches(absolute: string): boolean {
    return this.globs.some(({ glob, dir }) => glob.match(absolute) || (dir !== null && dir.match(absolute)));
  }
}

/** The real path of `absolute`, or of its nearest existing ancestor joined with the rest. */
export const realPath = realish;

/** The path as written (resolved against cwd, `~` expanded) and its real path: what rules are checked against. */
export function pathForms(path: string, cwd: string, home: string): { lexical: string; real: string } {
  const expanded = path === "~" ? home : path.startsWith("~/") ? home + path.slice(1) : path;
  const lexical = resolve(cwd, expanded);
  return { lexical, real: realPath(lexical) };
}

/** Whether `absolute` lies outside the project (as given and as its real path). */
export function isOutside(absolute: string, base: PatternBase): boolean {
  return projectRelative(absolute, base) === undefined;
}

/** `absolute` relative to the project root as given or as its real path, with `/`; undefined outside. */
function projectRelative(absolute: string, base: PatternBase): string | undefined {
  const given = resolve(base.projectRoot);
  for (const root of new Set([given, realPath(given)])) {
    const rel = relative(root, absolute);
    if (rel === "" || (!rel.startsWith("..") && !isAbsolute(rel))) return rel.split(sep).join("/");
  }
  return undefined;
}

/** How a path is written in a suggested rule: project-relative with `./`, `~/...` under home, else absolute. */
export function rulePath(absolute: string, base: PatternBase): string {
  const rel = projectRelative(absolute, base);
  if (rel === "") return "./";
  if (rel !== undefined) return `./${escapeGlob(rel)}`;
  const fromHome = relative(base.home, absolute);
  if (base.home !== "/" && fromHome && !fromHome.startsWith("..") && !isAbsolute(fromHome)) return `~/${escapeGlob(fromHome)}`;
  return escapeGlob(absolute);
}
