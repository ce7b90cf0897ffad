// What a trusted command or script runs from the project, followed from one file to the next, so that a
// `git pull` changing any of them asks again: the files named on a tool server's command line; what a
// shell sources or runs (`. ./tools/env.sh`, `source lib.sh`, `bash scripts/x.sh`, `./bin/start`, in a
// `sh -c` string or in a script reached so); and the relative imports of a JavaScript or TypeScript file
// (`import "./lib/a.js"`, `require("../b")`). Not followed: paths computed at run time (`$DIR/x.sh`),
// globs, files outside the project, packages (node_modules), other languages' imports, data files the
// code reads. docs/security.md says so.
import { closeSync, constants, existsSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { dirname, extname, isAbsolute, relative, resolve, sep } from "node:path";

/** At most this many files are pinned per item; at most this much of each is read for references. */
export const MAX_REACHED_FILES = 64;
export const MAX_SCANNED_BYTES = 1024 * 1024;

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh"]);
const RUNTIMES = new Set(["node", "bun", "deno", "tsx", "ts-node", "python", "python3", "ruby", "perl", "php"]);
/** Words that can come before the command of a shell command line. */
const PREFIXES = new Set(["exec", "then", "do", "else", "if", "while", "until", "!", "time", "command", "nohup", "env", "npx", "bunx"]);
const JS = new Set([".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx"]);
const JS_IMPORT = /\b(?:import|require)\s*\(\s*["'](\.{1,2}\/[^"']+)["']|\bfrom\s*["'](\.{1,2}\/[^"']+)["']|\bimport\s*["'](\.{1,2}\/[^"']+)["']/g;

type Language = "shell" | "js" | "other";
/** How a file was reached: sourced or run by a shell, or run by a program that reads it by its own rules. */
type Via = Language | "runtime";

function insideProject(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel) && rel !== ".git" && !rel.startsWith(`.git${sep}`);
}

function projectFile(root: string, path: string): boolean {
  if (!insideProject(root, path)) return false;
  try {
    return existsSync(path) && statSync(path).isFile();
  } catch {
    return false;
  }
}

const base = (word: string) => word.slice(word.lastIndexOf("/") + 1);

/** How a file is read for what it runs: by the shell that reached it, its extension, or its `#!` line. */
function languageOf(path: string, head: string, via: Via): Language {
  if (via === "shell") return "shell";
  const ext = extname(path);
  if (JS.has(ext)) return "js";
  if (ext === ".sh" || ext === ".bash") return "shell";
  const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(head);
  if (shebang) {
    const program = base(shebang[1]!) === "env" && shebang[2] ? shebang[2] : base(shebang[1]!);
    if (SHELLS.has(program)) return "shell";
    if (["node", "bun", "deno", "tsx"].includes(program)) return "js";
  }
  return "other";
}

/** Splits shell text into simple commands of unquoted words (a reader's approximation, not a shell). */
function shellCommands(text: string): string[][] {
  const commands: string[][] = [];
  for (const line of text.split("\n")) {
    if (/^\s*#/.test(line)) continue;
    for (const part of line.split(/;|&&|\|\||\||&|\(|\)|\{|\}|`|\$\(/)) {
      const words = (part.match(/"[^"]*"|'[^']*'|[^\s"']+/g) ?? []).map((w) => w.replace(/^["']|["']$/g, ""));
      const hash = words.findIndex((w) => w.startsWith("#"));
      commands.push(hash === -1 ? words : words.slice(0, hash));
    }
  }
  return commands;
}

/** The words of one command that name what it sources or runs, with how the named file is read. */
function runTargets(words: string[]): { word: string; via: Via }[] {
  let i = 0;
  while (i < words.length && (PREFIXES.has(words[i]!) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!))) i++;
  const command = words[i];
  if (command === undefined) return [];
  const rest = words.slice(i + 1);
  const firstOperand = (skip: string[] = []) => rest.find((w) => !w.startsWith("-") && !skip.includes(w));
  if (command === "." || command === "source") return rest[0] ? [{ word: rest[0], via: "shell" }] : [];
  const name = base(command);
  const targets: { word: string; via: Via }[] = command.includes("/") ? [{ word: command, via: "runtime" }] : [];
  if (SHELLS.has(name)) {
    // `-c`, or a bundle of short options holding it (`-lc`, `-ec`).
    const c = rest.findIndex((w) => /^-[A-Za-z]*c[A-Za-z]*$/.test(w));
    if (c !== -1 && rest[c + 1] !== undefined) return [...targets, ...shellCommands(rest[c + 1]!).flatMap(runTargets)];
    const script = firstOperand();
    if (script) targets.push({ word: script, via: "shell" });
  } else if (RUNTIMES.has(name)) {
    const script = firstOperand(["run"]);
    if (script) targets.push({ word: script, via: "runtime" });
  }
  return targets;
}

function resolveJs(from: string, spec: string): string[] {
  const path = resolve(dirname(from), spec);
  return ["", ".js", ".mjs", ".cjs", ".ts", ".mts", ".tsx", "/index.js", "/index.ts"].map((ext) => path + ext);
}

/** The first MAX_SCANNED_BYTES of a file, and whether there is more; null when unreadable. */
function readHead(path: string): { bytes: Uint8Array; more: boolean } | null {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const size = fstatSync(fd).size;
    const bytes = new Uint8Array(Math.min(size, MAX_SCANNED_BYTES));
    const read = readSync(fd, bytes, 0, bytes.length, 0);
    return { bytes: bytes.subarray(0, read), more: size > MAX_SCANNED_BYTES };
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

type Scan = { targets: { path: string; via: Via }[]; truncated: boolean };

/**
 * What one file runs, as read the way it was reached: shared by the items of one load, so a config naming
 * the same script from many servers reads it once.
 */
export type ScanCache = Map<string, Scan | null>;

function scan(root: string, path: string, how: Via): Scan | null {
  const head = readHead(path);
  if (!head || head.bytes.includes(0)) return null;
  const text = new TextDecoder().decode(head.bytes);
  const targets: { path: string; via: Via }[] = [];
  const language = languageOf(path, text.slice(0, 200), how);
  if (language === "shell") {
    // Relative paths in a script are the shell's, which runs in the project directory; also tried from the script's own.
    for (const t of shellCommands(text).flatMap(runTargets)) {
      if (t.word.includes("$") || t.word.includes("*")) continue;
      targets.push({ path: resolve(root, t.word), via: t.via }, { path: resolve(dirname(path), t.word), via: t.via });
    }
  } else if (language === "js") {
    for (const m of text.matchAll(JS_IMPORT)) for (const candidate of resolveJs(path, (m[1] ?? m[2] ?? m[3])!)) targets.push({ path: candidate, via: "runtime" });
  }
  return { targets, truncated: head.more };
}

export interface Reached {
  files: string[];
  /** Set when a limit left something unread or unpinned: the shown line says so. */
  incomplete: boolean;
}

/**
 * The project files `words` (a command line, already split) runs, and what they in turn source, run or
 * import; `via` says how the command line itself is read (`sourced`: an init script the shell sources).
 */
export function reachedFiles(root: string, words: string[], via: "command" | "sourced", cache: ScanCache = new Map()): Reached {
  const found: string[] = [];
  let incomplete = false;
  const queue: { path: string; via: Via }[] = [];
  const add = (path: string, how: Via) => {
    if (found.includes(path) || !projectFile(root, path)) return;
    if (found.length >= MAX_REACHED_FILES) {
      incomplete = true;
      return;
    }
    found.push(path);
    queue.push({ path, via: how });
  };
  if (via === "sourced") {
    for (const word of words) add(resolve(root, word), "shell");
  } else {
    // Every word of the command line that names a project file (a script, a config it is given).
    for (const word of words) if (!word.startsWith("-") && !word.includes("\0")) add(resolve(root, word), "runtime");
    for (const t of runTargets(words)) add(resolve(root, t.word), t.via);
  }
  while (queue.length > 0) {
    const { path, via: how } = queue.shift()!;
    const key = `${how}\0${path}`;
    if (!cache.has(key)) cache.set(key, scan(root, path, how));
    const scanned = cache.get(key);
    if (!scanned) continue;
    if (scanned.truncated) incomplete = true;
    for (const t of scanned.targets) add(t.path, t.via);
  }
  return { files: found, incomplete };
}
