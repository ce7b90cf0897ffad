// The project's file list for glob and grep: a walk that honours .gitignore (nested files, negations,
// directory patterns, .git/info/exclude), prunes generated trees, and is cached on the injected clock.
// Symlinks: a linked file inside the project is listed (with its real path); a link that leads out of the
// project is left out and named, so results can say so; linked directories are never walked.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import type { Static } from "@sinclair/typebox";
import ignore, { type Ignore } from "ignore";
import type { FileCatalogConfig } from "../config/schema/daemon.ts";
import { isInside, realish } from "./paths.ts";
import type { ToolClock } from "./tool.ts";

export const FILE_CATALOG_DEFAULTS = {
  max_files: 250000,
  max_duration_ms: 15000,
  cache_ttl_secs: 30,
  exclude_generated: true,
} as const;

export interface CatalogSnapshot {
  /** Absolute project root the paths are relative to. */
  root: string;
  /** Project-relative paths with forward slashes, sorted. */
  files: string[];
  /** True when a `.git` directory or file sits at or above the root; budgets do not apply then. */
  sourceControlled: boolean;
  /** Listed files that are symlinks: their project-relative path -> their real absolute path. */
  links: Record<string, string>;
  /** Symlinks (to files or directories) whose target is outside the project: left out of `files`. */
  outsideLinks: string[];
  /** Set when a budget stopped the walk early. */
  truncated?: { reason: "max_files" | "max_duration_ms"; limit: number };
  builtAt: number;
}

export interface FileCatalogOptions {
  root: string;
  clock: ToolClock;
  config?: Static<typeof FileCatalogConfig>;
}

/** The directory holding the `.git` directory or file at or above `dir`. */
export function findRepositoryRoot(dir: string): string | undefined {
  for (let current = resolve(dir); ; current = dirname(current)) {
    if (existsSync(join(current, ".git"))) return current;
    if (dirname(current) === current) return undefined;
  }
}

/** node_modules and bazel output trees: pruned when `exclude_generated` is on. */
export function isGeneratedDir(name: string): boolean {
  return name === "node_modules" || name.startsWith("bazel-");
}

/** One .gitignore-style file and how to turn a root-relative path into one relative to its directory. */
interface IgnoreLayer {
  matcher: Ignore;
  local(rel: string): string | undefined;
}

function loadIgnore(file: string): Ignore | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  return ignore({ allowRelativePaths: true }).add(text);
}

/** Deeper files decide first; the first layer with a matching rule (ignore or `!` negation) wins. */
function isIgnored(layers: readonly IgnoreLayer[], rel: string, isDir: boolean): boolean {
  for (let i = layers.length - 1; i >= 0; i--) {
    const layer = layers[i]!;
    const local = layer.local(rel);
    if (local === undefined || local === "") continue;
    const verdict = layer.matcher.test(isDir ? `${local}/` : local);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

/** Layers that apply above the root: .git/info/exclude and .gitignore files from the repository top down. */
function ancestorLayers(root: string, repoTop: string | undefined): IgnoreLayer[] {
  if (!repoTop) return [];
  const layers: IgnoreLayer[] = [];
  const add = (matcher: Ignore | undefined, dir: string) => {
    if (!matcher) return;
    const prefix = relative(dir, root).split(sep).join("/");
    layers.push({ matcher, local: (rel) => (prefix === "" ? rel : `${prefix}/${rel}`) });
  };
  add(loadIgnore(join(repoTop, ".git", "info", "exclude")), repoTop);
  const chain: string[] = [];
  for (let dir = dirname(root); isInside(repoTop, dir); dir = dirname(dir)) {
    chain.unshift(dir);
    if (dir === repoTop) break;
  }
  for (const dir of chain) add(loadIgnore(join(dir, ".gitignore")), dir);
  return layers;
}

export class FileCatalog {
  readonly root: string;
  private readonly clock: ToolClock;
  private readonly config: Required<Static<typeof FileCatalogConfig>>;
  private cached: CatalogSnapshot | undefined;

  constructor(options: FileCatalogOptions) {
    this.root = resolve(options.root);
    this.clock = options.clock;
    this.config = { ...FILE_CATALOG_DEFAULTS, ...stripUndefined(options.config ?? {}) };
  }

  /** Drops the cached list (a file-mutating tool completed). */
  invalidate(): void {
    this.cached = undefined;
  }

  /** The cached list while younger than `cache_ttl_secs`, else a fresh walk. */
  snapshot(signal?: AbortSignal): CatalogSnapshot {
    const now = this.clock.now();
    if (this.cached && now - this.cached.builtAt < this.config.cache_ttl_secs * 1000) return this.cached;
    this.cached = this.walk(signal);
    return this.cached;
  }

  private walk(signal?: AbortSignal): CatalogSnapshot {
    const start = this.clock.now();
    const repoTop = findRepositoryRoot(this.root);
    const budgeted = repoTop === undefined;
    const files: string[] = [];
    const links: Record<string, string> = {};
    const outsideLinks: string[] = [];
    const realRoot = realish(this.root);
    let truncated: CatalogSnapshot["truncated"];
    const stack: { rel: string; layers: IgnoreLayer[] }[] = [{ rel: "", layers: ancestorLayers(this.root, repoTop) }];
    let sinceClock = 0;
    walking: while (stack.length > 0) {
      signal?.throwIfAborted();
      const { rel: dirRel, layers: parentLayers } = stack.pop()!;
      if (budgeted && this.clock.now() - start > this.config.max_duration_ms) {
        truncated = { reason: "max_duration_ms", limit: this.config.max_duration_ms };
        break;
      }
      const dirAbs = dirRel === "" ? this.root : join(this.root, dirRel);
      let entries;
      try {
        entries = readdirSync(dirAbs, { withFileTypes: true });
      } catch {
        continue;
      }
      let layers = parentLayers;
      const own = loadIgnore(join(dirAbs, ".gitignore"));
      if (own) {
        const base = dirRel;
        layers = [...parentLayers, { matcher: own, local: (rel) => (base === "" ? rel : rel.startsWith(`${base}/`) ? rel.slice(base.length + 1) : undefined) }];
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const subdirs: string[] = [];
      for (const entry of entries) {
        if (entry.name === ".git") continue;
        const rel = dirRel === "" ? entry.name : `${dirRel}/${entry.name}`;
        let isDir = entry.isDirectory();
        let isFile = entry.isFile();
        let real: string | undefined;
        if (entry.isSymbolicLink()) {
          // Linked directories are not walked (no cycles, no escapes); a link out of the project is named.
          const full = join(dirAbs, entry.name);
          let targetIsDir = false;
          try {
            real = realpathSync(full);
            const stat = statSync(real);
            isFile = stat.isFile();
            targetIsDir = stat.isDirectory();
          } catch {
            isFile = false;
          }
          isDir = false;
          if (real !== undefined && !isInside(realRoot, real)) {
            if ((isFile || targetIsDir) && !isIgnored(layers, rel, targetIsDir)) outsideLinks.push(rel);
            continue;
          }
        }
        if (isDir) {
          if (this.config.exclude_generated && isGeneratedDir(entry.name)) continue;
          if (isIgnored(layers, rel, true)) continue;
          subdirs.push(rel);
        } else if (isFile) {
          if (isIgnored(layers, rel, false)) continue;
          if (budgeted && files.length >= this.config.max_files) {
            truncated = { reason: "max_files", limit: this.config.max_files };
            break walking;
          }
          files.push(rel);
          if (real !== undefined) links[rel] = real;
          if (budgeted && ++sinceClock >= 1000) {
            sinceClock = 0;
            if (this.clock.now() - start > this.config.max_duration_ms) {
              truncated = { reason: "max_duration_ms", limit: this.config.max_duration_ms };
              break walking;
            }
          }
        }
      }
      for (const rel of subdirs.reverse()) stack.push({ rel, layers });
    }
    files.sort();
    outsideLinks.sort();
    const snapshot: CatalogSnapshot = { root: this.root, files, links, outsideLinks, sourceControlled: !budgeted, builtAt: this.clock.now() };
    if (truncated) snapshot.truncated = truncated;
    return snapshot;
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The sentence a glob or grep result carries when the catalog walk was cut short. */
export function truncationNote(snapshot: CatalogSnapshot): string | undefined {
  const t = snapshot.truncated;
  if (!t) return undefined;
  const what = t.reason === "max_files" ? `${t.limit} files (daemon.file_catalog.max_files)` : `${t.limit} ms (daemon.file_catalog.max_duration_ms)`;
  return `[the project is not in a source-controlled repository and its file walk stopped at ${what}; only ${snapshot.files.length} files were searched. Narrow the search with \`path\`, or use the shell.]`;
}
