// The system prompt of a session: the facet's prompt (a built-in one in the wording of the model's
// family), what reminders are, the environment (project, git state, local date, the model itself), the
// instruction files (global, repository root down to the working directory, `.agent/`), the
// model-invocable skills, and the project variables. It is built from facts read once at session start,
// so it stays the same from request to request (the provider's prompt cache keeps it).
import type { ModelChoice } from "../facets/model-choice.ts";
import { describeModel } from "../../providers/families/resolve.ts";
import type { PromptVariant } from "../../providers/families/types.ts";
import type { GitFacts, LocalTime } from "./environment.ts";
import type { Facet } from "./facets.ts";
import { leftOutNote, type InstructionSet } from "./instructions.ts";
import remindersText from "./prompts/reminders.txt" with { type: "text" };
import claudeVariant from "./prompts/variants/claude.txt" with { type: "text" };
import gptVariant from "./prompts/variants/gpt.txt" with { type: "text" };
import geminiVariant from "./prompts/variants/gemini.txt" with { type: "text" };
import openVariant from "./prompts/variants/open.txt" with { type: "text" };
import type { Skill } from "./skills.ts";
import { substituteVariables } from "./variables.ts";

export const PROMPT_VARIANTS: Record<PromptVariant, string> = { claude: claudeVariant, gpt: gptVariant, gemini: geminiVariant, open: openVariant };

/** The model as the prompt names it, and which wording of the built-in prompts it gets. */
export interface PromptModel {
  key: string;
  /** The provider's id of the model (`claude-sonnet-5`, `gpt-5.5`). */
  id: string;
  provider: string;
  family: string;
  variant: PromptVariant;
}

/** The model's family decides the variant (providers/families: `promptVariant`; `models.<key>.api.family` overrides). */
export function promptModel(choice: Pick<ModelChoice, "model" | "provider">): PromptModel {
  const m = choice.model;
  let family: { id: string; promptVariant: PromptVariant };
  try {
    family = describeModel(choice.provider.dialect, m.provider_name, m.api, { interleaved: m.interleaved ?? null });
  } catch {
    // An unknown api.family is a config error reported when requests are built; the prompt takes the generic wording.
    family = { id: "unknown", promptVariant: "open" };
  }
  return { key: m.key, id: m.provider_name, provider: m.provider, family: family.id, variant: family.promptVariant };
}

export interface SystemPromptParts {
  facet: Facet;
  projectRoot: string;
  cwd: string;
  shell: string;
  local: LocalTime;
  git: GitFacts | null;
  model: PromptModel | null;
  instructions: InstructionSet;
  skills: Skill[];
  variables: Record<string, string>;
}

/** A built-in facet (not one the project or the config supplies) gets the family's variant too. */
function facetPrompt(facet: Facet, model: PromptModel | null, variables: Record<string, string>): string {
  const own = substituteVariables(facet.prompt, variables).trim();
  if (!facet.source.startsWith("agent://facets/") || !model) return own;
  return `${own}\n\n${PROMPT_VARIANTS[model.variant].trim()}`;
}

function environment(p: SystemPromptParts): string {
  const lines = [
    "# Environment",
    `- Project root: ${p.projectRoot}`,
    `- Working directory: ${p.cwd}`,
    `- Platform: ${process.platform}; shell: ${p.shell}`,
    `- Today's date: ${p.local.date}; the user's time zone: ${p.local.zone}`,
  ];
  if (p.model) lines.push(`- You are the model ${p.model.id} (configured as \`${p.model.key}\`, provider ${p.model.provider})`);
  const g = p.git;
  if (!g) lines.push("- Git: the project is not in a git repository (or git is not installed)");
  else {
    lines.push(`- Git branch: ${g.branch}${g.upstream ? `, tracking ${g.upstream}` : ", no upstream"}`);
    if (g.commits.length > 0) lines.push(`- Recent commits:\n${g.commits.map((c) => `  ${c}`).join("\n")}`);
    if (g.status.length === 0) lines.push("- Working tree: clean at session start");
    else {
      const more = g.moreStatus > 0 ? `\n  ... and ${g.moreStatus} more` : "";
      lines.push(`- Working tree at session start (\`git status --short\`; changes here may be the user's, not yours):\n${g.status.map((l) => `  ${l}`).join("\n")}${more}`);
    }
  }
  return lines.join("\n");
}

export function buildSystemPrompt(p: SystemPromptParts): string {
  const sections = [facetPrompt(p.facet, p.model, p.variables)];
  if (p.facet.policies.length > 0) sections.push(`Policies of the ${p.facet.name} facet (follow them while it is active):\n${p.facet.policies.map((x) => `- ${x}`).join("\n")}`);
  sections.push(remindersText.trim());
  sections.push(environment(p));
  const { files, leftOut } = p.instructions;
  if (files.length > 0 || leftOut.length > 0) {
    const shown = files.map((f) => `## ${f.path}${f.importedBy ? ` (imported by ${f.importedBy})` : ""}\n\n${substituteVariables(f.text, p.variables)}`);
    if (leftOut.length > 0) shown.push(leftOutNote(leftOut));
    sections.push(
      "# Project instructions\n\nFollow these instructions from the user's and the project's instruction files (AGENTS.md and the like), general to specific: when two disagree, the later, more specific one wins. Files of subdirectories you work in later arrive in `instructions` reminders.\n\n" +
        shown.join("\n\n"),
    );
  }
  const skills = p.skills.filter((s) => s.modelInvocable);
  if (skills.length > 0) {
    sections.push(`# Skills\n\nWhen a skill applies to the task, read its file with \`read\` and follow it.\n${skills.map((s) => `- ${s.name}: ${s.description} (${s.path})`).join("\n")}`);
  }
  const names = Object.keys(p.variables).sort();
  if (names.length > 0) sections.push(`# Project variables\n${names.map((n) => `- ${n} = ${p.variables[n]}`).join("\n")}`);
  return sections.join("\n\n");
}

/** The reminder text for instruction files reached later (a tool touched their directory). */
export function instructionsReminder(set: InstructionSet, variables: Record<string, string>): string {
  const shown = set.files.map((f) => `## ${f.path}${f.importedBy ? ` (imported by ${f.importedBy})` : ""}\n\n${substituteVariables(f.text, variables)}`);
  if (set.leftOut.length > 0) shown.push(leftOutNote(set.leftOut));
  return `Instructions for the files you are now working on; they apply to that directory and below, and win over more general ones:\n\n${shown.join("\n\n")}`;
}
