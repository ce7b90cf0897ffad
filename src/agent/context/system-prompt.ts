// The system prompt of a session: the facet's prompt, the environment, the project's instructions
// (AGENTS.md from the global config dir, the repository root and `.agent/`, general to specific), the
// model-invocable skills, and the project variables.
import { join } from "node:path";
import { readContextFile, type ContextWarnings } from "./context-file.ts";
import type { Facet } from "./facets.ts";
import type { Skill } from "./skills.ts";
import { substituteVariables } from "./variables.ts";

export interface ContextSources {
  globalConfigDir: string;
  projectRoot: string;
  repoRoot?: string;
  agentDir?: string;
  followSymlinks: boolean;
}

export interface InstructionFile {
  path: string;
  text: string;
}

/**
 * AGENTS.md files in order: global, repository root, `.agent/` (each once, even when two places
 * coincide). The global one may link anywhere; the others are read only from inside the repository
 * (the root one) or the project (the `.agent/` one).
 */
export function loadInstructions(src: ContextSources, warnings: ContextWarnings): InstructionFile[] {
  const repo = src.repoRoot ?? src.projectRoot;
  const files = new Map<string, string | null>([[join(src.globalConfigDir, "AGENTS.md"), null]]);
  if (!files.has(join(repo, "AGENTS.md"))) files.set(join(repo, "AGENTS.md"), repo);
  if (src.agentDir && !files.has(join(src.agentDir, "AGENTS.md"))) files.set(join(src.agentDir, "AGENTS.md"), src.projectRoot);
  const out: InstructionFile[] = [];
  for (const [path, within] of files) {
    const text = readContextFile(path, src.followSymlinks, within, warnings);
    if (text !== null && text.trim() !== "") out.push({ path, text: text.trim() });
  }
  return out;
}

export interface SystemPromptParts {
  facet: Facet;
  projectRoot: string;
  cwd: string;
  shell: string;
  date: string;
  instructions: InstructionFile[];
  skills: Skill[];
  variables: Record<string, string>;
}

export function buildSystemPrompt(p: SystemPromptParts): string {
  const sections = [substituteVariables(p.facet.prompt, p.variables).trim()];
  if (p.facet.policies.length > 0) sections.push(`Policies of the ${p.facet.name} facet (follow them while it is active):\n${p.facet.policies.map((x) => `- ${x}`).join("\n")}`);
  sections.push(
    [
      "# Environment",
      `- Project root: ${p.projectRoot}`,
      `- Working directory: ${p.cwd}`,
      `- Platform: ${process.platform}; shell: ${p.shell}`,
      `- Today's date: ${p.date}`,
    ].join("\n"),
  );
  if (p.instructions.length > 0) {
    const files = p.instructions.map((f) => `## ${f.path}\n\n${substituteVariables(f.text, p.variables)}`);
    sections.push(`# Project instructions\n\nFollow these instructions from AGENTS.md files (later files are more specific and win).\n\n${files.join("\n\n")}`);
  }
  const skills = p.skills.filter((s) => s.modelInvocable);
  if (skills.length > 0) {
    sections.push(`# Skills\n\nWhen a skill applies to the task, read its file with \`read\` and follow it.\n${skills.map((s) => `- ${s.name}: ${s.description} (${s.path})`).join("\n")}`);
  }
  const names = Object.keys(p.variables).sort();
  if (names.length > 0) sections.push(`# Project variables\n${names.map((n) => `- ${n} = ${p.variables[n]}`).join("\n")}`);
  return sections.join("\n\n");
}
