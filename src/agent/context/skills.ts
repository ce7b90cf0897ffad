// Skills: reusable instructions in `.agent/skills/<name>/SKILL.md` (or `.agent/skills/<name>.md`) and the
// same layout in the global config dir; the project's skill wins on a name clash. Frontmatter:
// `description`, `user_invocable` (default true: a person can run it as /<name>), `model_invocable`
// (default true: listed to the model, which reads the file when the skill applies).
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { projectOfAgentDir, readContextFile, type ContextWarnings } from "./context-file.ts";
import { parseFrontmatter } from "./frontmatter.ts";

export interface Skill {
  name: string;
  description: string;
  path: string;
  userInvocable: boolean;
  modelInvocable: boolean;
  origin: "project" | "global";
}

const SKILL_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

function skillFiles(dir: string): { name: string; path: string }[] {
  if (!existsSync(dir)) return [];
  const out: { name: string; path: string }[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.endsWith(".md")) out.push({ name: entry.name.slice(0, -3), path: join(dir, entry.name) });
    else if (existsSync(join(dir, entry.name, "SKILL.md"))) out.push({ name: entry.name, path: join(dir, entry.name, "SKILL.md") });
  }
  return out;
}

function flag(value: unknown, fallback: boolean): boolean {
  return typeof value === "boolean" ? value : fallback;
}

/** `dirs`: the global `skills/` and the project's `.agent/skills/`; a project skill is read only from inside the project. */
export function loadSkills(dirs: { dir: string; origin: Skill["origin"] }[], followSymlinks: boolean, warnings: ContextWarnings): Skill[] {
  const byName = new Map<string, Skill>();
  for (const { dir, origin } of dirs) {
    const within = origin === "project" ? projectOfAgentDir(dirname(dir)) : null;
    for (const file of skillFiles(dir)) {
      if (!SKILL_NAME.test(file.name)) {
        warnings.push(`skipped skill ${file.path}: the name '${file.name}' must be lowercase letters, digits, '-' or '_'`);
        continue;
      }
      const text = readContextFile(file.path, followSymlinks, within, warnings);
      if (text === null) continue;
      const doc = parseFrontmatter(text);
      if (doc.error) {
        warnings.push(`skipped skill ${file.path}: ${doc.error}`);
        continue;
      }
      const description = typeof doc.data.description === "string" ? doc.data.description.trim() : doc.body.split("\n")[0]!.slice(0, 200);
      byName.set(file.name, {
        name: file.name,
        description,
        path: file.path,
        userInvocable: flag(doc.data.user_invocable, true),
        modelInvocable: flag(doc.data.model_invocable, true),
        origin,
      });
    }
  }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}
