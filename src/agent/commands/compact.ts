// `/compact [instructions]`: compacts the context now (the summary model writes the summary; the words
// after the command say what it should keep in focus). Not while a turn runs.
import { compactContext, currentContextTokens } from "../compaction/compact.ts";
import { SessionCommandError, type SessionCommand } from "./types.ts";

export const compactCommand: SessionCommand = {
  name: "compact",
  usage: "/compact [instructions for the summary]",
  summary: "Summarize the conversation so far to free context; recent messages are kept word for word",
  whileBusy: false,
  async run({ session, runtime, signal }, args) {
    const instructions = args.join(" ").trim();
    const result = await compactContext(runtime, session.conversation, { turnId: null, reason: "manual", signal, ...(instructions ? { instructions } : {}) });
    if (!result.ok) {
      const code = result.error.code === "nothing_to_compact" || result.error.code === "cancelled" ? "command_unavailable" : "command_failed";
      throw new SessionCommandError(code, result.error.message);
    }
    const now = currentContextTokens(runtime, session.conversation);
    return {
      message: `Compacted the context from about ${result.tokensBefore} to about ${result.tokensAfter} tokens (window ${runtime.model.context_window}).`,
      data: { tokens_before: result.tokensBefore, tokens_after: result.tokensAfter, context_tokens: now, summary: result.summary },
    };
  },
};
