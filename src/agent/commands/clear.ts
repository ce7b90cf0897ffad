// `/clear`: the model starts from an empty context; the transcript stays for display and history.
// Refused when `daemon.disable_context_clear` is on.
import { clearContext } from "../compaction/clear.ts";
import { SessionCommandError, type SessionCommand } from "./types.ts";

export const clearCommand: SessionCommand = {
  name: "clear",
  usage: "/clear",
  summary: "Start a fresh context: the model no longer sees the conversation so far (it stays on screen)",
  whileBusy: false,
  async run({ session, runtime }, args) {
    if (args.length > 0) throw new SessionCommandError("invalid_command", "usage: /clear (it takes no arguments)");
    if (runtime.compaction.clearDisabled) {
      throw new SessionCommandError("command_unavailable", "/clear is disabled by daemon.disable_context_clear in the config; /compact still works");
    }
    const tokensBefore = clearContext(runtime, session.conversation);
    return { message: `Context cleared (it held about ${tokensBefore} tokens). The conversation stays on screen; the model starts fresh.`, data: { tokens_before: tokensBefore } };
  },
};
