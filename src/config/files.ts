// Where config files live: the global layer under the XDG config dir, the project layer in `.agent/`
// found from the working directory upward (stopping at the repository root or the filesystem root).
import { existsSync, lstatSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { CONFIG_EXTENSIONS } from "./parse.ts";

export type Env = Record<string, string | undefined>;

export function globalConfigDir(env: Env): string {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && xdg.startsWith("/")) return join(xdg, "agent");
  return join(env.HOME ?? "/", ".config", "agent");
}

export function dataRoot(env: Env): string {
  const xdg = env.XDG_DATA_HOME;
  if (xdg && xdg.startsWith("/")) return join(xdg, "agent");
  return join(env.HOME ?? "/", ".local", "share", "agent");
}

export type FileSearch =
  | { kind: "none"; candidates: string[] }
  | { kind: "one"; path: string }
  | { kind: "conflict"; paths: string[] };

/** Looks for `config.{yaml,yml,toml,json}` in a directory; two at once is a conflict. */
export function findConfigIn(dir: string): FileSearch {
  const candidates = CONFIG_EXTENSIONS.map((ext) => join(dir, `config.${ext}`));
  const present = candidates.filter((p) => {
    try {
      lstatSync(p);
      return true;
    } catch {
      return false;
    }
  });
  if (present.length === 0) return { kind: "none", candidates };
  if (present.length === 1) return { kind: "one", path: present[0]! };
  return { kind: "conflict", paths: present };
}

export interface ProjectLocation {
  /** The project directory: the one holding `.agent/`, else the repository root, else the working directory. */
  root: string;
  /** The `.agent/` directory, when one was found. */
  agentDir?: string;
  /** The repository root, when the working directory is inside one. */
  repoRoot?: string;
}

/** Walks up from `cwd` to the first `.agent/` directory, not past the repository root. */
export function findProject(cwd: string, env: Env): ProjectLocation {
  const globalDir = resolve(globalConfigDir(env));
  let dir = resolve(cwd);
  for (;;) {
    const agentDir = join(dir, ".agent");
    const isRepoRoot = existsSync(join(dir, ".git"));
    // `~/.agent` is a project dir only if it is not the global config dir itself.
    if (existsSync(agentDir) && resolve(agentDir) !== globalDir) {
      return { root: dir, agentDir, repoRoot: isRepoRoot ? dir : findRepoRoot(dir) };
    }
    if (isRepoRoot) return { root: dir, repoRoot: dir };
    const parent = dirname(dir);
    if (parent === dir) return { root: resolve(cwd) };
    dir = parent;
  }
}

function findRepoRoot(from: string): string | undefined {
  let dir = from;
  for (;;) {
    if (existsSync(join(dir, ".git"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
