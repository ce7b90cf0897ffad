// A project's custom slash commands (`.agent/commands/*.md`, `.claude/commands/*.md`) are prompts, which
// need no trust, unless they run something: a `!command` line (or Claude Code's inline !`command`) runs a
// shell command when a person types the command. Such a command file is a trust item, its shell lines
// shown and its content pinned, so a `git pull` that changes it asks again. Parsing lives here (the
// config layer) so the engine's command loader and the trust check read a file the same way.
import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";

/** Where a project keeps its commands, in precedence order: the agent's own folder, then Claude Code's. */
export const PROJECT_COMMAND_DIRS = [".agent/commands", ".claude/commands"] as const;

/** Command files larger than this are not read (a command is a prompt, not a document). */
export const MAX_COMMAND_FILE_BYTES = 64 * 1024;

/** Subfolders deeper than this are not searched (`a/b/c.md` is `/a:b:c`). */
const MAX_DEPTH = 3;

/** One segment of a command name: the file's (or a folder's) name. */
export const COMMAND_SEGMENT = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export interface CommandFile {
  /** `frontend:component` for `frontend/component.md`. */
  name: string;
  path: string;
}

export interface ShellLine {
  /** The text replaced by the command's output. */
  match: string;
  command: string;
}

/** The shell commands of a command body: lines starting with `!`, and inline !`command` (Claude Code's form). */
export function shellLines(body: string): ShellLine[] {
  const out: ShellLine[] = [];
  for (const m of body.matchAll(/^!(?!`)([^\n]*\S[^\n]*)$|!`([^`\n]+)`/gm)) {
    const command = (m[1] ?? m[2] ?? "").trim();
    if (command) out.push({ match: m[0], command });
  }
  return out;
}

/**
 * The `.md` files under `dir`, named by their path (`/` becomes `:`), lowercase. A name that is not
 * letters, digits, `-` or `_` is reported through `skipped` and left out.
 */
export function commandFiles(dir: string, skipped: (path: string, why: string) => void): CommandFile[] {
  const out: CommandFile[] = [];
  const walk = (folder: string, prefix: string[], depth: number) => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(folder, entry.name);
      const isDir = entry.isDirectory() || (entry.isSymbolicLink() && isDirectory(path));
      if (isDir && depth < MAX_DEPTH) {
        const segment = entry.name.toLowerCase();
        if (COMMAND_SEGMENT.test(segment)) walk(path, [...prefix, segment], depth + 1);
        else skipped(path, `the folder name '${entry.name}' must be letters, digits, '-' or '_'`);
        continue;
      }
      if (!entry.name.endsWith(".md") || isDir) continue;
      const segment = entry.name.slice(0, -3).toLowerCase();
      if (!COMMAND_SEGMENT.test(segment)) {
        skipped(path, `the name '${entry.name.slice(0, -3)}' must be letters, digits, '-' or '_'`);
        continue;
      }
      out.push({ name: [...prefix, segment].join(":"), path });
    }
  };
  walk(dir, [], 1);
  return out;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** A project command file's text, read only where it really is inside the project and within the size cap. */
function projectText(root: string, path: string): string | null {
  try {
    const real = realpathSync(path);
    if (!inside(realpathSync(root), real) || statSync(real).size > MAX_COMMAND_FILE_BYTES) return null;
    return readFileSync(real, "utf8");
  } catch {
    return null;
  }
}

/** The project's commands that run shell lines: name, file and the commands, in precedence order (first name wins). */
export function projectShellCommands(projectRoot: string): { name: string; path: string; commands: string[] }[] {
  const seen = new Set<string>();
  const out: { name: string; path: string; commands: string[] }[] = [];
  for (const dir of PROJECT_COMMAND_DIRS) {
    for (const file of commandFiles(join(projectRoot, dir), () => {})) {
      if (seen.has(file.name)) continue;
      seen.add(file.name);
      const text = projectText(projectRoot, file.path);
      if (text === null) continue;
      const commands = shellLines(text).map((l) => l.command);
      if (commands.length) out.push({ name: file.name, path: file.path, commands });
    }
  }
  return out;
}
