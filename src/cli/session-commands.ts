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

const LIST_FLAGS = [
  { name: "json", type: "boolean", summary: "One JSON object per line" },
  { name: "all", type: "boolean", summary: "Sessions of every project, not just this one" },
] as const;

export const sessionsCommand: CommandSpec = {
  name: "sessions",
  summary: "List, stop, remove, prune, fork, export and import sessions (no subcommand: list)",
  flags: [...LIST_FLAGS],
  run: async (args, io) => (await import("./session-admin-run.ts")).listRun(args, io),
  subcommands: [
    {
      name: "list",
      summary: "List sessions (newest first) with their state",
      flags: [...LIST_FLAGS],
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
    {
      name: "fork",
      summary: "Copy a session's history into a new session (prints its id); the source is untouched",
      description: `
The fork has the same project and the history up to now, or with --at up to and including prompt N
(numbered as /rewind lists them) or the prompt with that message id, with its answers: everything from
the next prompt on is left out. A turn running in the source is closed as interrupted in the fork. The
fork is stopped; 'agent continue ID' or 'agent exec --session ID' goes on from there.`,
      flags: [{ name: "at", type: "string", valueName: "PROMPT", summary: "Keep the history up to this prompt: its number (1 = first) or its message id" }],
      positionals: [{ name: "SESSION", summary: "Session id", required: true }],
      examples: ["agent sessions fork ses_06gz...", "agent sessions fork --at 2 ses_06gz..."],
      run: async (args, io) => (await import("./session-transfer-run.ts")).forkRun(args, io),
    },
    {
      name: "export",
      summary: "Print a session's history: JSON (for import) or a Markdown transcript",
      description: `
json (default) is a versioned document of the session's events ({"format": "agent-session", "version": 1,
...}) that 'agent sessions import' reads; it holds everything the model saw and answered, tool output
included (secrets were scrubbed when recorded), so treat it as you would the project. markdown is a
transcript for people: prompts, answers, tool calls and their results. Restore points (/undo, /rewind)
stay with the session: their file copies are not exported.`,
      flags: [
        { name: "format", type: "string", valueName: "F", choices: ["json", "markdown"], summary: "json (default) or markdown" },
        { name: "output", type: "string", valueName: "FILE", summary: "Write to FILE (mode 600) instead of stdout" },
      ],
      positionals: [{ name: "SESSION", summary: "Session id", required: true }],
      examples: ["agent sessions export ses_06gz... > session.json", "agent sessions export --format markdown ses_06gz... > transcript.md"],
      run: async (args, io) => (await import("./session-transfer-run.ts")).exportRun(args, io),
    },
    {
      name: "import",
      summary: "Make a new session of this project from an exported JSON file (prints its id)",
      description: `
Every event of the file is checked against its record schema before anything is written; a bad file is
refused naming the event and the field. The session gets a new id and works in the current project.`,
      positionals: [{ name: "FILE", summary: "The JSON of 'agent sessions export' ('-': stdin)", required: true }],
      examples: ["agent sessions import session.json"],
      run: async (args, io) => (await import("./session-transfer-run.ts")).importRun(args, io),
    },
  ],
};
