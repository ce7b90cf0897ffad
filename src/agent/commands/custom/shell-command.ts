// `/shell COMMAND` (the TUI's `!COMMAND`): runs a shell command for the person, with the session's
// permissions (asked like the model's shell calls; denied in a headless run unless a rule allows it), shows
// its output, and puts it before the next prompt so the model reads what the person saw.
import { SessionCommandError, type SessionCommand } from "../types.ts";
import { runPersonShell } from "./shell-call.ts";

/** What the model reads before the next prompt. */
export function shellContext(command: string, output: string, failed: boolean): string {
  return `<user-shell-command>\nThe user ran this shell command${failed ? " (it failed)" : ""}: ${command}\nOutput:\n${output}\n</user-shell-command>`;
}

export const shellCommand: SessionCommand = {
  name: "shell",
  usage: "/shell COMMAND (in the TUI: !COMMAND)",
  summary: "Run a shell command with the session's permissions; its output goes to the model with your next prompt",
  // The session's one shell runs the model's calls too: not beside a running turn.
  whileBusy: false,
  async run(ctx, args) {
    const command = args.join(" ").trim();
    if (!command) throw new SessionCommandError("invalid_command", "usage: /shell COMMAND (for example /shell git status)");
    const outcome = await runPersonShell(ctx, command);
    if (!outcome.ran) throw new SessionCommandError("command_unavailable", outcome.message);
    ctx.session.addContext(shellContext(command, outcome.output, outcome.failed));
    return { message: outcome.output, data: { command, failed: outcome.failed, context: "next_prompt" } };
  },
};
