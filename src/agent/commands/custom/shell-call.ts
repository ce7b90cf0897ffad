// A shell command the person asked for outside the model's turn (`!command` in the prompt, a custom
// command's `!` lines): the same permission gate and asks as the model's shell calls (a headless run
// denies what would need an answer), run by the session's shell tool (its sandbox, environment filter
// and output cap), its output scrubbed of secrets like every tool result.
import type { CommandContext } from "../types.ts";
import { runTool } from "../../../tools/tool.ts";

export type ShellOutcome = { ran: true; output: string; failed: boolean } | { ran: false; message: string };

export async function runPersonShell(ctx: CommandContext, command: string): Promise<ShellOutcome> {
  const { runtime, session, signal } = ctx;
  const tool = runtime.tools.get("shell");
  if (!tool) return { ran: false, message: `the shell tool is not available in facet ${runtime.facet} (or disabled by daemon.disabled_tools), so \`${command}\` was not run` };
  const refusal = runtime.tools.refusal?.("shell");
  if (refusal) return { ran: false, message: refusal };
  const input = { command };
  const ctxTools = runtime.toolContext;
  const auth = await session.authorizeCall({ tool: "shell", input, cwd: ctxTools.cwd, projectRoot: ctxTools.projectRoot }, signal);
  if (!auth.allowed) return { ran: false, message: auth.message };
  const result = await runTool(tool, input, ctxTools, signal);
  return { ran: true, output: runtime.scrub(result.output), failed: result.isError === true };
}
