// The command tree. Each group lives in its own file and imports its implementation lazily.
import type { CommandSpec } from "../util/cli-command.ts";
import { authCommand } from "./auth-commands.ts";
import { configCommand } from "./config-commands.ts";
import { connectCommand } from "./connect-commands.ts";
import { daemonCommand } from "./daemon-commands.ts";
import { RUN_PERMISSION_FLAGS } from "./run-permission-flags.ts";
import { continueCommand, newCommand, sessionsCommand } from "./session-commands.ts";
import { execCommand } from "./exec-commands.ts";
import { acpCommand } from "./acp-commands.ts";
import { gatewayCommand } from "./gateway-commands.ts";
import { mcpCommand } from "./mcp-commands.ts";
import { modelsCommand } from "./models-commands.ts";
import { printCommand } from "./print-commands.ts";
import { setupCommand } from "./setup-commands.ts";
import { trustCommand } from "./trust-commands.ts";
import { updateCommand } from "./update-commands.ts";

export const rootCommand: CommandSpec = {
  name: "agent",
  summary: "agent — a coding-agent runtime: model providers, tools, and sessions you can leave and rejoin",
  description: `
A provider's key is all it takes: export ANTHROPIC_API_KEY (or OPENAI_API_KEY, GEMINI_API_KEY,
OPENROUTER_API_KEY, ...) and run 'agent'; 'agent models' lists every provider and what it needs.
Configure providers and models in $XDG_CONFIG_HOME/agent/config.yaml (else ~/.config/agent/config.yaml;
global) or .agent/config.yaml (project); 'agent config path' shows where, 'agent config validate' checks
them, and the README has a commented example. Secrets belong in environment variables, referenced as
\${VAR}. A project's tool servers, scripts and credential-bearing addresses are used only once you trust
the project ('agent trust').

Run 'agent' with no command on a terminal to start a session in the current directory (with no provider
configured it uses a local model server running on its default port, else offers 'agent setup' or the
offline demo); 'agent new', 'agent continue' and 'agent exec' do it explicitly.`,
  subcommands: [newCommand, continueCommand, sessionsCommand, execCommand, acpCommand, connectCommand, setupCommand, modelsCommand, configCommand, mcpCommand, trustCommand, authCommand, printCommand, gatewayCommand, daemonCommand, updateCommand],
  examples: ["agent", "agent setup", "agent --demo", 'agent exec "explain the build"', "agent models", "agent config validate"],
  // No command on a terminal: a new session in this directory (the front door); else this help.
  flags: [{ name: "demo", type: "boolean", summary: "With no command: start the offline demo (scripted answers, no account)" }, ...RUN_PERMISSION_FLAGS],
  run: async (args, io) => (await import("./front-door.ts")).frontDoorRun(args, io, rootCommand),
};
