// `agent update`: replace this agent with the newest release of its channel, or only check (`--check`).
import type { CommandSpec } from "../util/cli-command.ts";

export const updateCommand: CommandSpec = {
  name: "update",
  summary: "Update agent to the newest release of its channel (or only check with --check)",
  description: `
Reads the release manifest named by updates.manifest_url in the global config (docs/updates.md), picks
the newest release of updates.channel (stable, or beta: beta and stable) for this platform, downloads it
next to the binary, checks its size, SHA-256 and that it runs, then renames it over the binary. A failed
or interrupted update leaves the installed binary as it was. Never downgrades.`,
  flags: [
    { name: "check", type: "boolean", summary: "Only say whether a newer release exists" },
    { name: "channel", type: "string", valueName: "NAME", choices: ["stable", "beta"], summary: "Use this channel for this run instead of updates.channel" },
    { name: "binary", type: "string", valueName: "FILE", summary: "Update this agent binary instead of the running one" },
    { name: "json", type: "boolean", summary: "Print one JSON object for scripts" },
  ],
  examples: ["agent update --check", "agent update", "agent update --channel beta --json"],
  run: async (args, io) => (await import("../update/run.ts")).updateRun(args, io),
};
