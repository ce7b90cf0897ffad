// Instruction files: what the user and the project tell the model in files such as AGENTS.md. One file
// per directory (the first of `daemon.instruction_files` that exists there), read from the global config
// dir, then from the repository root down to the working directory, then `.agent/`. A directory below
// the working directory adds its file when a tool first touches something in it (a reminder). `@path`
// in a file imports another file, relative to it, never from outside the project. Everything together is
// capped; what does not fit is named in a note.
import { existsSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { loadContextFile, type ContextWarnings } from "./context-file.ts";

/** Names tried in each directory, in order; the first that exists is that directory's file. */
export const DEFAULT_INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md", "GEMINI.md"] as const;
/** All instruction text of a session together (imports included): about 24k tokens. */
export const MAX_INSTRUCTION_BYTES = 96 * 1024;
/** How deep imports nest (a file's imports are depth 1). */
export const MAX_IMPORT_DEPTH = 3;

export interface InstructionFile {
  path: string;
  text: string;
  /** The file whose `@path` brought this one in. */
  importedBy?: string;
}

/** Files taken, and the paths of those left out because the budget was spent. */
export interface InstructionSet {
  files: InstructionFile[];
  leftOut: string[];
}

/** The note the model reads about files left out by the cap. */
export function leftOutNote(leftOut: readonly string[]): string {
  return `[left out: the instruction files together are capped at ${MAX_INSTRUCTION_BYTES / 1024} KiB, and these did not fit: ${leftOut.join(", ")}. Read them with \`read\` if they matter to the task.]`;
}

export interface InstructionSources {
  globalConfigDir: string;
  projectRoot: string;
  repoRoot?: string;
  agentDir?: string;
  /** The session's working directory; defaults to the project root. */
  cwd?: string;
  followSymlinks: boolean;
  /** `daemon.instruction_files`. */
  names?: readonly string[];
}

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** `@path` mentions outside code: at a line's start or after a space, a path with a dot or slash. */
function importsOf(text: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of text.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const prose = line.replace(/`[^`]*`/g, "");
    for (const m of prose.matchAll(/(?:^|\s)@((?:~\/|\.{1,2}\/|\/)?[\w.\-/]*[\w\-/][\w.\-/]*)/g)) {
      const path = m[1]!.replace(/[.,;:]+$/, "");
      if (/[./]/.test(path)) out.push(path);
    }
  }
  return out;
}

/**
 * The instruction files of a session and the budget left after them; `touch` finds the file of a
 * directory reached later. One tracker per session: each directory and file is taken once.
 */
export class InstructionTracker {
  readonly names: readonly string[];
  private readonly repo: string;
  private readonly cwd: string;
  /** Directories already looked at, and real paths of files already taken. */
  private readonly checkedDirs = new Set<string>();
  private readonly taken = new Set<string>();
  private used = 0;

  constructor(
    private readonly src: InstructionSources,
    private readonly warnings: ContextWarnings,
  ) {
    this.names = src.names && src.names.length > 0 ? src.names : DEFAULT_INSTRUCTION_FILES;
    this.repo = resolve(src.repoRoot ?? src.projectRoot);
    this.cwd = resolve(src.cwd ?? src.projectRoot);
  }

  /** Global, then repository root down to the working directory, then `.agent/`; capped as a whole. */
  initial(): InstructionSet {
    const groups: InstructionFile[][] = [];
    const global = this.dirFile(this.src.globalConfigDir, null);
    if (global) groups.push(global);
    const chain = inside(this.repo, this.cwd) ? this.dirsBetween(this.repo, this.cwd) : [this.repo];
    for (const dir of chain) {
      const g = this.dirFile(dir, this.withinFor(dir));
      if (g) groups.push(g);
    }
    if (this.src.agentDir) {
      const g = this.fileGroup(join(this.src.agentDir, "AGENTS.md"), resolve(this.src.projectRoot));
      if (g) groups.push(g);
    }
    return this.fit(groups);
  }

  /**
   * A tool touched `path` (read, edited, written): the files of the directories between the ones already
   * seen and `path`'s directory, inside the repository. Empty when there is nothing new.
   */
  touch(path: string): InstructionSet {
    const dir = dirname(resolve(this.cwd, path));
    if (!inside(this.repo, dir)) return { files: [], leftOut: [] };
    const groups: InstructionFile[][] = [];
    for (const d of this.dirsBetween(this.repo, dir)) {
      if (this.checkedDirs.has(d)) continue;
      const g = this.dirFile(d, this.withinFor(d));
      if (g) groups.push(g);
    }
    return this.fit(groups);
  }

  /** The repository's own files stay in the repository; below the project root, in the project. */
  private withinFor(dir: string): string {
    const project = resolve(this.src.projectRoot);
    return inside(project, dir) ? project : this.repo;
  }

  private dirsBetween(top: string, bottom: string): string[] {
    const dirs = [bottom];
    for (let d = bottom; d !== top && inside(top, d); ) {
      d = dirname(d);
      dirs.push(d);
    }
    return dirs.reverse();
  }

  /** The first existing name of the list in `dir`, with its imports. */
  private dirFile(dir: string, within: string | null): InstructionFile[] | null {
    this.checkedDirs.add(resolve(dir));
    for (const name of this.names) {
      const path = join(dir, name);
      if (!existsSync(path)) continue;
      const g = this.fileGroup(path, within);
      if (g) return g;
    }
    return null;
  }

  private fileGroup(path: string, within: string | null): InstructionFile[] | null {
    const out: InstructionFile[] = [];
    this.read(path, within, 0, undefined, out);
    return out.length > 0 ? out : null;
  }

  private read(path: string, within: string | null, depth: number, importedBy: string | undefined, out: InstructionFile[]): void {
    const loaded = loadContextFile(path, this.src.followSymlinks, within);
    // An `@name` that is no file is prose (`@types/node`, a handle), not a broken import: nothing to say.
    if (loaded === null) return;
    if ("problem" in loaded) {
      this.warnings.push(`skipped ${path}: ${loaded.problem}`);
      return;
    }
    const key = realKey(path);
    if (this.taken.has(key)) return;
    this.taken.add(key);
    const text = loaded.text.trim();
    if (text !== "") out.push(importedBy ? { path, text, importedBy } : { path, text });
    for (const ref of importsOf(text)) {
      const target = ref.startsWith("~/") && within === null ? join(process.env.HOME ?? "~", ref.slice(2)) : resolve(dirname(path), ref);
      if (within !== null && !inside(resolve(within), target)) {
        this.warnings.push(`${path}: the import @${ref} is outside the project; instruction files import only files inside it`);
        continue;
      }
      if (depth + 1 > MAX_IMPORT_DEPTH) {
        this.warnings.push(`${path}: the import @${ref} was not read; imports nest at most ${MAX_IMPORT_DEPTH} deep`);
        continue;
      }
      this.read(target, within, depth + 1, path, out);
    }
  }

  /**
   * Keeps what fits in the session's budget, the more specific groups first (the last given), and adds
   * a note naming what was left out.
   */
  private fit(groups: InstructionFile[][]): InstructionSet {
    const kept: InstructionFile[][] = [];
    const left: string[] = [];
    for (const group of [...groups].reverse()) {
      const fitting: InstructionFile[] = [];
      for (const f of group) {
        const size = Buffer.byteLength(f.text);
        if (this.used + size <= MAX_INSTRUCTION_BYTES) {
          fitting.push(f);
          this.used += size;
        } else left.push(f.path);
      }
      kept.unshift(fitting);
    }
    if (left.length > 0) this.warnings.push(`instruction files over the ${MAX_INSTRUCTION_BYTES / 1024} KiB cap were left out: ${left.join(", ")}`);
    return { files: kept.flat(), leftOut: left.reverse() };
  }
}

function realKey(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
