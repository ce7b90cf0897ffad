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
file; --trust-project uses them for this run (for CI). The session is saved: 'agent exec --session <id>'
adds another prompt to it headless (--continue: this project's latest session), 'agent continue <id>'
opens it. Without --json a last stderr line sums up the model calls, tokens and cost. --output-schema
asks the provider for JSON of the schema where its API can (OpenAI Responses, Chat Completions), states
it in the prompt where not (Anthropic Messages), checks the answer and asks once more if it does not fit.
Exit codes: 0 done, 1 failed (setup, provider or engine error), 2 usage, 3 stopped early (tool-turn
limit, --max-turns, --max-cost, refusal, output limit), 130 interrupted.`,
  flags: [
    { name: "model", type: "string", valueName: "M", summary: "Model key, optionally with an effort suffix: name(level)" },
    { name: "facet", type: "string", valueName: "F", summary: "Facet (default: active_session.default_exec_facet, else execute)" },
    { name: "json", type: "boolean", summary: "Print one JSON event per line; the last is the run's cost in USD (models.dev prices)" },
    { name: "demo", type: "boolean", summary: "Use the offline demo provider (scripted answers, no account)" },
    { name: "config", type: "string", valueName: "FILE", summary: "Use FILE instead of the global config for this run" },
    { name: "session", type: "string", valueName: "ID", summary: "Add the prompt to this stored session (the model sees its history) instead of starting one" },
    { name: "continue", type: "boolean", summary: "Add the prompt to this project's most recently active session" },
    { name: "image", type: "string", valueName: "FILE", repeatable: true, summary: "Attach an image (PNG, JPEG, GIF or WebP, up to 3.75 MB) to the prompt; repeatable" },
    { name: "output-schema", type: "string", valueName: "FILE", summary: "Make the final answer JSON valid against the JSON Schema in FILE; only that JSON is printed" },
    { name: "output-last", type: "string", valueName: "FILE", summary: "Also write the final answer to FILE" },
    { name: "max-turns", type: "string", valueName: "N", summary: "Stop (exit 3) after N tool round-trips (instead of daemon.max_tool_turns)" },
    { name: "max-cost", type: "string", valueName: "USD", summary: "Stop (exit 3) once the run has cost USD dollars (priced models only)" },
    { name: "json-deltas", type: "boolean", summary: "Like --json, with the text and reasoning deltas (part_delta) as they stream" },
    { name: "trust-project", type: "boolean", summary: "Use what the project's config holds back until trusted (tool servers, scripts, providers, models, defaults, allow rules) for this run only, without 'agent trust' (CI)" },
    ...RUN_PERMISSION_FLAGS,
  ],
  positionals: [{ name: "PROMPT", summary: "The prompt; '-' reads it from stdin", required: true }],
  examples: [
    'agent exec "add a --verbose flag to the CLI"',
    "git diff | agent exec --json -",
    'agent exec --continue "now add tests for it"',
    'agent exec --image screenshot.png "why is the header misaligned?"',
    'agent exec --output-schema review.schema.json --output-last review.json "review the last commit"',
    'agent exec --demo "hello"',
  ],
  run: async (args, io) => (await import("./exec-run.ts")).execRun(args, io),
};
