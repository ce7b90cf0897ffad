// `agent exec`: one headless session in the current directory.
import type { CommandSpec } from "../util/cli-command.ts";
import { RUN_PERMISSION_FLAGS } from "./run-permission-flags.ts";

export const execCommand: CommandSpec = {
  name: "exec",
  summary: "Run one prompt headless in this project and print the answer",
  description: `
Runs a session in the current directory (the project) without the terminal UI. Plain mode prints the
final answer on stdout and progress (tool calls, retries) on stderr; --json prints one JSON event per
line on stdout. A tool call that the permission rules would ask about is denied: nobody can answer in
a headless run (allow it with a rule, or --allow RULE for this run; with --full-auto commands run in the
sandbox without asking, and leaving the sandbox is denied). Tool servers, scripts and credential-bearing addresses of a
project that is not trusted ('agent trust') are left out, with one warning line on stderr naming the
file; --trust-project uses them for this run (for CI). The session is saved; 'agent continue <id>' resumes it.
Exit codes: 0 done, 1 failed (setup, provider or engine error), 2 usage, 3 stopped early (tool-turn
limit, refusal, output limit), 130 interrupted.`,
  flags: [
    { name: "model", type: "string", valueName: "M", summary: "Model key, optionally with an effort suffix: name(level)" },
    { name: "facet", type: "string", valueName: "F", summary: "Facet (default: active_session.default_exec_facet, else execute)" },
    { name: "json", type: "boolean", summary: "Print one JSON event per line; the last is the run's cost in USD (models.dev prices)" },
    { name: "demo", type: "boolean", summary: "Use the offline demo provider (scripted answers, no account)" },
    { name: "config", type: "string", valueName: "FILE", summary: "Use FILE instead of the global config for this run" },
    { name: "trust-project", type: "boolean", summary: "Use what the project's config holds back until trusted (tool servers, scripts, providers, models, defaults, allow rules) for this run only, without 'agent trust' (CI)" },
    ...RUN_PERMISSION_FLAGS,
  ],
  positionals: [{ name: "PROMPT", summary: "The prompt; '-' reads it from stdin", required: true }],
  examples: ['agent exec "add a --verbose flag to the CLI"', "git diff | agent exec --json -", 'agent exec --demo "hello"'],
  run: async (args, io) => (await import("./exec-run.ts")).execRun(args, io),
};
