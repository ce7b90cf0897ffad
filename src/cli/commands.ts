// The command tree. Each group lives in its own file and imports its implementation lazily.
import type { CommandSpec } from "./command.ts";

export const rootCommand: CommandSpec = {
  name: "agent",
  summary: "agent — a coding-agent runtime: model providers, tools, and sessions you can leave and rejoin",
  subcommands: [],
};
