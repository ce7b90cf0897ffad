// Custom slash commands: Markdown files whose body is a prompt template, with optional front matter
// (`description`, `argument-hint`, `model`, `allowed-tools`). Read at session start from, first name
// wins: the project's `.agent/commands/`, the project's `.claude/commands/` (Claude Code's), the user's
// `<config dir>/commands/`, then `~/.claude/commands/`. A subfolder is a namespace (`frontend/button.md`
// is `/frontend:button`). A project file is read only from inside the project (context-file.ts).
import { join } from "node:path";
import { commandFiles, PROJECT_COMMAND_DIRS } from "../../../config/trust/project-commands.ts";
import { readContextFile, type ContextWarnings } from "../../context/context-file.ts";
import { parseFrontmatter } from "../../context/frontmatter.ts";

export interface CustomCommandDef {
  name: string;
  origin: "project" | "global";
  path: string;
  description: string;
  argumentHint: string | null;
  /** A model key (`name` or `name(level)`) the command's turn runs with. */
  model: string | null;
  /** Claude Code's `allowed-tools`: here it narrows which `!` lines may run (never grants a permission). */
  allowedTools: string[] | null;
  body: string;
}

export interface CommandDirs {
  projectRoot: string;
  globalConfigDir: string;
  home: string | undefined;
  followSymlinks: boolean;
}

export function commandDirs(d: CommandDirs): { dir: string; origin: CustomCommandDef["origin"] }[] {
  return [
    ...PROJECT_COMMAND_DIRS.map((dir) => ({ dir: join(d.projectRoot, dir), origin: "project" as const })),
    { dir: join(d.globalConfigDir, "commands"), origin: "global" as const },
    ...(d.home ? [{ dir: join(d.home, ".claude", "commands"), origin: "global" as const }] : []),
  ];
}

function stringList(value: unknown): string[] | null | undefined {
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return value.split(",").map((s) => s.trim()).filter(Boolean);
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value.map((v) => v.trim()).filter(Boolean);
  return undefined;
}

function optionalString(value: unknown): string | null | undefined {
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return value.trim() || null;
  if (typeof value === "number") return String(value);
  return undefined;
}

/** The commands of every folder, first name wins; `taken` names (built-in commands) are skipped with a warning. */
export function loadCustomCommands(d: CommandDirs, taken: ReadonlySet<string>, warnings: ContextWarnings): CustomCommandDef[] {
  const byName = new Map<string, CustomCommandDef>();
  const seenDirs = new Set<string>();
  for (const { dir, origin } of commandDirs(d)) {
    // The project may be the home directory: its `.claude/commands` is then read once.
    if (seenDirs.has(dir)) continue;
    seenDirs.add(dir);
    for (const file of commandFiles(dir, (path, why) => warnings.push(`skipped command ${path}: ${why}`))) {
      if (byName.has(file.name)) continue;
      if (taken.has(file.name)) {
        warnings.push(`skipped command ${file.path}: /${file.name} is a built-in command`);
        continue;
      }
      const text = readContextFile(file.path, d.followSymlinks, origin === "project" ? d.projectRoot : null, warnings);
      if (text === null) continue;
      const doc = parseFrontmatter(text);
      const problem = doc.error ?? fieldProblem(doc.data);
      if (problem) {
        warnings.push(`skipped command ${file.path}: ${problem}`);
        continue;
      }
      const description = optionalString(doc.data.description) ?? firstLine(doc.body);
      byName.set(file.name, {
        name: file.name,
        origin,
        path: file.path,
        description: `${description} (${origin === "project" ? "project" : "user"} command)`,
        argumentHint: optionalString(doc.data["argument-hint"]) ?? null,
        model: optionalString(doc.data.model) ?? null,
        allowedTools: stringList(doc.data["allowed-tools"]) ?? null,
        body: doc.body,
      });
    }
  }
  return [...byName.values()];
}

function fieldProblem(data: Record<string, unknown>): string | null {
  for (const key of ["description", "argument-hint", "model"]) {
    if (optionalString(data[key]) === undefined) return `the front matter field '${key}' must be text`;
  }
  if (stringList(data["allowed-tools"]) === undefined) return "the front matter field 'allowed-tools' must be text or a list of texts";
  return null;
}

function firstLine(body: string): string {
  const line = body.split("\n").find((l) => l.trim() && !l.trim().startsWith("!"))?.trim() ?? "";
  return line.replace(/^#+\s*/, "").slice(0, 200) || "custom command";
}
