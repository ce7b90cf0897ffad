// A fresh context: the provider sees nothing of the conversation before this point. Used by /clear; a
// plan handoff that starts a new context may call it too (it does not check disable_context_clear).
import type { Conversation } from "../conversation.ts";
import type { AgentRuntime } from "../runtime.ts";
import { currentContextTokens } from "./compact.ts";

/** Emits `context_cleared`; returns the (estimated) tokens the context held. */
export function clearContext(rt: AgentRuntime, conversation: Conversation): number {
  const tokensBefore = currentContextTokens(rt, conversation);
  rt.emit({ type: "context_cleared", tokens_before: tokensBefore });
  return tokensBefore;
}
