// `agent new`, `agent continue`, `agent sessions list|stop|rm`: sessions of the current project, each
// served by its own daemon process.
import type { CommandSpec } from "../util/cli-command.ts";
import { RUN_PERMISSION_FLAGS } from "./run-permission-flags.ts";

const DEMO = { name: "demo", type: "boolean", summary: "Use the offline demo provider (scripted answers, no account)" } as const;
const DETACH = { name: "detach", type: "boolean", summary: "Print the session id and leave the daemon running" } as const;

export const newCommand: CommandSpec = {
  name: "new",
  summary: "Start a new session in this project (its daemon keeps running until stopped or idle)",
  description: `
Creates a session for the current project, starts its daemon and, with PROMPT, sends it. On a terminal
the conversation view opens: Enter sends, Alt+Enter or Ctrl+J adds a line, Esc or Ctrl+C interrupts,
Up on an empty prompt takes back the newest queued input, Ctrl+O shows details, /help lists commands,
Ctrl+D, /exit or Ctrl+C with no turn running detaches (the session keeps running; see docs/tui.md). Without a terminal the answer streams as
plain text. With --detach the session id is printed and the command returns at once. --sandbox,
--autonomy, --full-auto, --allow and --deny hold for this session's daemon until it stops.`,
  flags: [DETACH, DEMO, ...RUN_PERMISSION_FLAGS],
  positionals: [{ name: "PROMPT", summary: "The first prompt" }],
  examples: ['agent new "explain the build"', 'agent new --detach "run the tests and fix failures"'],
  run: async (args, io) => (await import("./session-run.ts")).newRun(args, io),
};

export const continueCommand: CommandSpec = {
  name: "continue",
  summary: "Resume a session and show it (no SESSION: pick one of this project's on a terminal, else the newest)",
  flags: [DETACH, DEMO],
  positionals: [{ name: "SESSION", summary: "Session id (ses_...)" }],
  examples: ["agent continue", "agent continue ses_06gz..."],
  run: async (args, io) => (await import("./session-run.ts")).continueRun(args, io),
};

export const sessionsCommand: CommandSpec = {
  name: "sessions",
  summary: "List, stop, remove and prune sessions",
  subcommands: [
    {
      name: "list",
      summary: "List sessions (newest first) with their state",
      flags: [
        { name: "json", type: "boolean", summary: "One JSON object per line" },
        { name: "all", type: "boolean", summary: "Sessions of every project, not just this one" },
      ],
      run: async (args, io) => (await import("./session-admin-run.ts")).listRun(args, io),
    },
    {
      name: "stop",
      summary: "Stop a session (or --all): its turn is interrupted, history is finalized, the daemon exits",
      description: `
An idle daemon also stops its session by itself after daemon.idle_exit_secs (default 900: 15 minutes
with no client attached, no turn running, nothing queued and no open question); 'agent continue'
resumes a stopped session either way.`,
      flags: [{ name: "all", type: "boolean", summary: "Every session of every project that is not stopped (prints their ids)" }],
      positionals: [{ name: "SESSION", summary: "Session id" }],
      examples: ["agent sessions stop ses_06gz...", "agent sessions stop --all"],
      run: async (args, io) => (await import("./session-admin-run.ts")).stopRun(args, io),
    },
    {
      name: "rm",
      summary: "Remove a stopped session and its data",
      flags: [{ name: "force", type: "boolean", summary: "Stop it first when it is running" }],
      positionals: [{ name: "SESSION", summary: "Session id", required: true }],
      run: async (args, io) => (await import("./session-admin-run.ts")).rmRun(args, io),
    },
    {
      name: "prune",
      summary: "Remove old sessions of every project that no daemon serves (prints their ids)",
      flags: [
        { name: "older-than", type: "string", valueName: "D", summary: "Unchanged for longer than D: 30d (default), 12h, 90m, 2w" },
        { name: "dry-run", type: "boolean", summary: "Only list what would be removed" },
      ],
      examples: ["agent sessions prune", "agent sessions prune --older-than 7d --dry-run"],
      run: async (args, io) => (await import("./session-admin-run.ts")).pruneRun(args, io),
    },
  ],
};
