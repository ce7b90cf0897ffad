// `agent setup`: the guided first configuration (provider, key, connection test, default models).
import type { CommandSpec } from "../util/cli-command.ts";

export const setupCommand: CommandSpec = {
  name: "setup",
  summary: "Choose a provider, give its key, test the connection and write the global config",
  description: `
Asks which provider to use (hosted, or a local server such as Ollama), how agent gets the key (an
environment variable read at each start, or pasted now and kept in <data root>/keys/<provider>.key,
mode 0600), tests the connection by listing the provider's models, asks for the default models, and
writes the global config file ('agent config path' shows where) with comments. An existing file is
kept as .bak. Needs a terminal.`,
  flags: [],
  examples: ["agent setup"],
  run: async (args, io) => (await import("./setup-run.ts")).setupRun(args, io),
};
