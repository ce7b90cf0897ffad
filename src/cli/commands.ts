// The command tree. Each group lives in its own file and imports its implementation lazily.
import type { CommandSpec } from "./command.ts";
import { authCommand } from "./auth-commands.ts";
import { configCommand } from "./config-commands.ts";
import { daemonCommand } from "./daemon-commands.ts";
import { continueCommand, newCommand, sessionsCommand } from "./session-commands.ts";
import { execCommand } from "./exec-commands.ts";
import { gatewayCommand } from "./gateway-commands.ts";
import { printCommand } from "./print-commands.ts";
import { updateCommand } from "./update-commands.ts";

export const rootCommand: CommandSpec = {
  name: "agent",
  summary: "agent — a coding-agent runtime: model providers, tools, and sessions you can leave and rejoin",
  description: `
Configure providers and models in ~/.config/agent/config.yaml (global) or .agent/config.yaml (project);
'agent config path' shows where, 'agent config validate' checks them, and the README has a commented
example. Secrets belong in environment variables, referenced as \${VAR}.`,
  subcommands: [newCommand, continueCommand, sessionsCommand, execCommand, configCommand, authCommand, printCommand, gatewayCommand, daemonCommand, updateCommand],
  examples: ["agent config validate", "agent config show --effective", "agent print config-schema --format yaml"],
};
