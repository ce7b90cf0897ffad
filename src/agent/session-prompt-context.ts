// What a session's system prompt is built from, read once at start so the prompt stays the same from
// request to request: the instruction files (the tracker finds more as tools reach new directories), the
// local time and git facts, skills and variables. Problems with those files go to the session's notices.
import { join } from "node:path";
import type { Env } from "../config/files.ts";
import type { Clock } from "../util/clock.ts";
import { gitFacts, localTime } from "./context/environment.ts";
import { InstructionTracker } from "./context/instructions.ts";
import { loadSkills } from "./context/skills.ts";
import type { SystemPromptParts } from "./context/system-prompt.ts";
import { loadVariables } from "./context/variables.ts";

export interface PromptContextOptions {
  projectRoot: string;
  repoRoot?: string;
  agentDir?: string;
  globalConfigDir: string;
  /** The session's working directory, absolute. */
  cwd: string;
  env: Env;
  clock: Clock;
  followSymlinks: boolean;
  /** `daemon.instruction_files`; the default names when absent. */
  instructionNames?: readonly string[];
  /** The shell command the prompt names. */
  shell: string;
}

export interface PromptContext {
  /** Finds the instruction files of directories reached later (the instructions reminder). */
  instructionFiles: InstructionTracker;
  /** Everything of the system prompt but the facet and the model, which can switch. */
  parts: Omit<SystemPromptParts, "facet" | "model">;
}

export function readPromptContext(opts: PromptContextOptions, warnings: string[]): PromptContext {
  const instructionFiles = new InstructionTracker(
    { globalConfigDir: opts.globalConfigDir, projectRoot: opts.projectRoot, repoRoot: opts.repoRoot, agentDir: opts.agentDir, cwd: opts.cwd, followSymlinks: opts.followSymlinks, names: opts.instructionNames },
    warnings,
  );
  const instructions = instructionFiles.initial();
  const local = localTime(opts.clock, opts.env.TZ);
  const git = gitFacts(opts.cwd, opts.env);
  const skillDirs: { dir: string; origin: "global" | "project" }[] = [{ dir: join(opts.globalConfigDir, "skills"), origin: "global" }];
  if (opts.agentDir) skillDirs.push({ dir: join(opts.agentDir, "skills"), origin: "project" });
  const skills = loadSkills(skillDirs, opts.followSymlinks, warnings);
  const variables = loadVariables(opts.agentDir, opts.followSymlinks, warnings);
  return { instructionFiles, parts: { projectRoot: opts.projectRoot, cwd: opts.cwd, shell: opts.shell, local, git, instructions, skills, variables } };
}
