// Token estimates for deciding when to compact and what fits. No tokenizer ships with the agent, so text
// counts 4 characters a token; the provider's reported usage replaces the estimate wherever one exists.
import type { ToolSpec } from "../../providers/request.ts";
import type { Conversation, ConversationEntry } from "../conversation.ts";
import { contextEntries, summaryMessageText } from "./context.ts";

export const CHARS_PER_TOKEN = 4;
/** What an image costs, roughly, at common sizes. */
const IMAGE_TOKENS = 1_500;
/** Per-message framing (role, ids, separators). */
const MESSAGE_TOKENS = 4;

export function textTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export function entryTokens(entry: ConversationEntry): number {
  let n = MESSAGE_TOKENS;
  if (entry.role === "user") {
    for (const p of entry.content) n += p.type === "text" ? textTokens(p.text) : IMAGE_TOKENS;
  } else if (entry.role === "assistant") {
    for (const p of entry.content) n += p.type === "tool_call" ? textTokens(p.name + JSON.stringify(p.arguments)) : textTokens(p.text);
  } else {
    for (const r of entry.results) n += MESSAGE_TOKENS + textTokens(r.output) + (r.images?.length ?? 0) * IMAGE_TOKENS;
  }
  return n;
}

/** The request's fixed part: system prompt and tool definitions. */
export function overheadTokens(system: string, tools: readonly ToolSpec[]): number {
  return textTokens(system) + (tools.length > 0 ? textTokens(JSON.stringify(tools)) : 0);
}

/**
 * The context the next request would send, in tokens: the last usage the provider reported for this
 * context (input + output of the newest assistant message since the last compaction) plus estimates of
 * what came after it; without such a report, an estimate of everything (`overhead` is only computed then:
 * it runs before every model call).
 */
export function contextTokens(conversation: Conversation, overhead: () => number): number {
  const entries = conversation.entries;
  const fresh = conversation.context?.fresh ?? 0;
  let added = 0;
  for (let i = entries.length - 1; i >= fresh; i--) {
    const e = entries[i]!;
    if (e.role === "assistant" && e.usage) {
      const u = e.usage;
      // input_tokens already includes cache reads and writes (every dialect normalizes it so).
      const reported = u.input_tokens + u.output_tokens;
      if (reported > 0) return reported + added;
    }
    added += entryTokens(e);
  }
  return overhead() + summaryTokens(conversation) + contextEntries(conversation).reduce((n, e) => n + entryTokens(e), 0);
}

function summaryTokens(conversation: Conversation): number {
  const summary = conversation.context?.summary;
  return summary ? MESSAGE_TOKENS + textTokens(summaryMessageText(summary)) : 0;
}
