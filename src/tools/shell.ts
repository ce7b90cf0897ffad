// `shell`: runs a command in the session's persistent bash or PowerShell. Calls run alone (lock key
// "shell"); the engine calls `close()` when the session ends.
import { existsSync, statSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { join, resolve } from "node:path";
import { Type } from "@sinclair/typebox";
import { sandboxBlockHint } from "../sandbox/failure.ts";
import type { Sandbox } from "../sandbox/sandbox.ts";
import { formatBytes } from "./file-content.ts";
import { isInside } from "./paths.ts";
import { resolveDialect } from "./shell-dialect.ts";
import type { ShellEnvSource } from "./shell-env.ts";
import { SHELL_MAX_CAPTURE_BYTES, ShellSession, type ShellStart, type StepOutcome } from "./shell-session.ts";
import { defineTool, toolError, type Tool, type ToolResult } from "./tool.ts";
import bashDescription from "./shell.txt" with { type: "text" };
import powershellDescription from "./shell-powershell.txt" with { type: "text" };

export const SHELL_DEFAULT_TIMEOUT_SECS = 120;
export const SHELL_MAX_TIMEOUT_SECS = 600;

export const ShellInput = Type.Object(
  {
    command: Type.String({ minLength: 1, description: "The command or script to run." }),
    timeout_secs: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: SHELL_MAX_TIMEOUT_SECS,
        description: `Seconds before the command is killed (default ${SHELL_DEFAULT_TIMEOUT_SECS}, at most ${SHELL_MAX_TIMEOUT_SECS}).`,
      }),
    ),
  },
  { additionalProperties: false },
);

/** With a sandbox the model may ask to leave it for one call; the permission gate asks the user first. */
export const SandboxedShellInput = Type.Object(
  {
    ...ShellInput.properties,
    outside_sandbox: Type.Optional(
      Type.Boolean({ description: "Run this command outside the sandbox, after the user approves. Only for a command the sandbox blocked." }),
    ),
  },
  { additionalProperties: false },
);

export interface ShellToolOptions {
  /** `agent_behavior.shell.command`. */
  command: "bash" | "powershell";
  /** `agent_behavior.shell.init_script`: project-relative. */
  initScript: string | null;
  projectRoot: string;
  /** The shell's environment (default: the daemon's minus credential-looking variables). */
  env?: ShellEnvSource;
  /** Where output over the cap is kept whole (the session dir's `tool-output/`); without it, only the cut text. */
  outputDir?: string;
  /** Where commands run (src/sandbox); without one they run unconfined. */
  sandbox?: Sandbox | null;
}

export type ShellTool = Tool<typeof SandboxedShellInput> & {
  /** Ends the session's shell and every process it started. */
  close(): Promise<void>;
};

const RESTART_NOTE =
  "[a new shell was started because the previous one ended; the working directory and exported variables " +
  "were restored, shell functions, aliases and unexported variables were not]";

function initProblem(options: ShellToolOptions): { path: string | null; error?: string } {
  if (!options.initScript) return { path: null };
  const root = resolve(options.projectRoot);
  const path = resolve(root, options.initScript);
  const field = `agent_behavior.shell.init_script (${JSON.stringify(options.initScript)})`;
  if (!isInside(root, path)) return { path, error: `${field} points outside the project; it must be a project-relative path.` };
  if (!existsSync(path)) return { path, error: `${field} does not exist at ${path}. Tell the user to create it or fix the config; shell commands cannot run until then.` };
  if (!statSync(path).isFile()) return { path, error: `${field} is not a file (${path}).` };
  return { path };
}

function endLine(step: StepOutcome, timeoutSecs: number): string {
  const end = step.end;
  switch (end.kind) {
    case "completed":
      return `[exit code ${end.exitCode}]`;
    case "shell_exited":
      return end.signal
        ? `[the shell was killed by ${end.signal}; the next command starts a new shell]`
        : `[exit code ${end.exitCode}; the command ended the shell itself (exit, or a failure under set -e); the next command starts a new shell]`;
    case "cancelled":
      return "[cancelled: the command and its shell were killed; the next command starts a new shell]";
    case "timed_out":
      return (
        `[timed out after ${timeoutSecs} s: the command and its shell were killed; the next command starts a new shell. ` +
        `Use a larger timeout_secs (at most ${SHELL_MAX_TIMEOUT_SECS}), or start long jobs in the background with their output in a file]`
      );
    case "output_limit":
      return `[killed: the command wrote more than ${formatBytes(SHELL_MAX_CAPTURE_BYTES)} of output; redirect large output to a file]`;
  }
}

function describeStart(start: ShellStart | undefined, initScript: string | null, timeoutSecs: number): string[] {
  const notes: string[] = [];
  if (start?.restarted) notes.push(RESTART_NOTE);
  const init = start?.init;
  if (init && (init.end.kind !== "completed" || init.end.exitCode !== 0)) {
    const shown = init.output.text.trimEnd();
    notes.push(`[init_script ${initScript} did not complete: ${endLine(init, timeoutSecs).slice(1, -1)}]${shown ? `\n${shown}` : ""}`);
  }
  return notes;
}

export function createShellTool(options: ShellToolOptions): ShellTool {
  const dialect = resolveDialect(options.command);
  const initPath = initProblem(options).path;
  const sandbox = options.sandbox ?? undefined;
  const sessionOptions = "error" in dialect ? undefined : { dialect, projectRoot: resolve(options.projectRoot), initScript: initPath, env: options.env };
  const session = sessionOptions && new ShellSession({ ...sessionOptions, ...(sandbox ? { wrap: sandbox.wrap } : {}) });
  // Approved escapes run in a shell of their own: a sandboxed command cannot leave state for it to run.
  let outside: ShellSession | undefined;
  const description = options.command === "powershell" ? powershellDescription : bashDescription;
  const tool = defineTool({
    name: "shell",
    description: sandbox ? `${description}\n\n${sandboxDescription(sandbox)}` : description,
    inputSchema: (sandbox ? SandboxedShellInput : ShellInput) as typeof SandboxedShellInput,
    exclusive: () => "shell",
    async run(input, ctx, signal): Promise<ToolResult> {
      if (!session || !sessionOptions) return toolError((dialect as { error: string }).error);
      const escape = sandbox !== undefined && input.outside_sandbox === true;
      const shell = escape ? (outside ??= new ShellSession(sessionOptions)) : session;
      // Checked whenever a shell is about to start, so a script created after a failed call is picked up.
      const problem = shell.running ? undefined : initProblem(options).error;
      if (problem) return toolError(problem);
      const timeoutSecs = input.timeout_secs ?? SHELL_DEFAULT_TIMEOUT_SECS;
      const keepAs = options.outputDir ? join(options.outputDir, `shell-${(ctx.callId ?? randomUUID()).replace(/[^A-Za-z0-9_-]/g, "_")}.txt`) : undefined;
      const { start, step } = await shell.run(input.command, { timeoutMs: timeoutSecs * 1000, signal, ...(keepAs ? { keepAs } : {}) });
      const notes = describeStart(start, options.initScript, timeoutSecs);
      if (!step) return toolError([...notes, "The command did not run."].join("\n"));
      const parts = [...notes];
      const text = step.output.text;
      if (text !== "") parts.push(text.endsWith("\n") ? text.slice(0, -1) : text);
      else parts.push("(no output)");
      parts.push(endLine(step, timeoutSecs));
      const hint = sandbox && !escape && step.end.kind === "completed" ? sandboxBlockHint(sandbox.policy, step.end.exitCode, text) : null;
      if (hint) parts.push(hint);
      // A non-zero exit code is a normal answer (grep found nothing, a test failed); the code is stated.
      return {
        output: parts.join("\n"),
        isError: step.end.kind !== "completed" || undefined,
        metadata: {
          exitCode: "exitCode" in step.end ? step.end.exitCode : null,
          end: step.end.kind,
          outputBytes: step.output.totalBytes,
          outputCapped: step.output.capped,
          ...(step.output.keptAt ? { outputFile: step.output.keptAt } : {}),
          ...(sandbox ? { sandbox: escape ? "outside" : sandbox.description } : {}),
        },
      };
    },
  });
  return Object.assign(tool, { close: async () => void (await Promise.all([session?.close(), outside?.close()])) });
}

function sandboxDescription(sandbox: Sandbox): string {
  const p = sandbox.policy;
  const writes = p.mode === "read_only" ? "cannot write files" : "can write only inside the project (not .git or .agent), $TMPDIR" + (p.writable.length > 1 ? " and the configured writable roots" : "");
  return (
    `Commands run in a sandbox (${sandbox.description}): they ${writes}${p.network ? "" : ", have no network access"}, and cannot read the user's credentials. ` +
    "If a command fails because of the sandbox and truly needs more, call shell again with `outside_sandbox: true`: the user is asked, and it runs in a separate shell " +
    "that starts in the project root without the sandboxed shell's working directory or variables."
  );
}
