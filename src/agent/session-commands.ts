// A session's slash commands beyond the built-ins: custom commands (.agent/commands, .claude/commands, the
// user's) and user-invocable skills (`/name args`), then tool servers' prompts (`/mcp__<server>__<prompt>`),
// listed as servers connect. A project command's shell lines run only while its trust item is trusted.
import type { LoadedConfig } from "../config/load.ts";
import type { McpManager } from "../mcp/manager.ts";
import type { Skill } from "./context/skills.ts";
import { customSessionCommands } from "./commands/custom/commands.ts";
import { loadCustomCommands, type CommandDirs } from "./commands/custom/load.ts";
import { SESSION_COMMANDS } from "./commands/index.ts";
import { mcpPromptCommands } from "./commands/mcp-prompts.ts";
import type { SessionCommand } from "./commands/types.ts";

export interface SessionCommandsOptions extends CommandDirs {
  loaded: Pick<LoadedConfig, "trust">;
  skills: readonly Skill[];
  mcp: McpManager | null;
}

/** The session's commands beyond the built-ins, asked each time (server prompts come and go). */
export function sessionCommands(opts: SessionCommandsOptions, warnings: string[]): () => readonly SessionCommand[] {
  const promptCommands = opts.mcp ? mcpPromptCommands(opts.mcp) : null;
  const builtinNames = new Set(SESSION_COMMANDS.map((c) => c.name));
  const { projectRoot, globalConfigDir, home, followSymlinks } = opts;
  const customDefs = loadCustomCommands({ projectRoot, globalConfigDir, home, followSymlinks }, builtinNames, warnings);
  const trust = opts.loaded.trust;
  const trustedCommands = new Set(trust.active ? trust.items.filter((i) => i.kind === "project_command").map((i) => i.key) : []);
  const customCommands = customSessionCommands(customDefs, opts.skills, builtinNames, { projectRoot, followSymlinks, projectShellTrusted: (name) => trustedCommands.has(`commands.${name}`) }, warnings);
  return () => (promptCommands ? [...customCommands, ...promptCommands.commands()] : customCommands);
}
