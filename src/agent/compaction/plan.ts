// Which part of the context a compaction summarizes and which recent entries it keeps word for word.
// The kept tail gets a token budget sized so that summary + kept tail + system prompt and tools land at
// no more than half the compaction threshold: the next request fits with room for the output reserve,
// and the session does not compact again right away.
import type { ResolvedModel } from "../../config/models.ts";
import type { Conversation, ConversationEntry } from "../conversation.ts";
import { contextEntries } from "./context.ts";
import { entryTokens } from "./estimate.ts";

/** The kept tail never takes more than this share of the window. */
const KEPT_SHARE_MAX = 0.25;
/** Summaries are asked to stay within this many tokens (and a tenth of the window). */
const SUMMARY_TOKENS_MAX = 4_096;
const SUMMARY_TOKENS_MIN = 256;

export interface CompactionPlan {
  summarize: ConversationEntry[];
  kept: ConversationEntry[];
  keptTokens: number;
}

/** The output limit of a summary call: small next to the session's window, within the summarizer's own limit. */
export function summaryTokenLimit(session: ResolvedModel, summarizer: ResolvedModel): number {
  return Math.max(SUMMARY_TOKENS_MIN, Math.min(summarizer.max_output_tokens_per_turn, SUMMARY_TOKENS_MAX, Math.floor(session.context_window / 10)));
}

/**
 * The context size (tokens) at which a session compacts: the model's compaction_threshold of its window,
 * or `cap` (daemon.compaction_context_cap; 0: none) when that comes first.
 */
export function thresholdTokens(model: ResolvedModel, cap: number): number {
  const threshold = Math.floor(model.compaction_threshold * model.context_window);
  return cap > 0 ? Math.min(threshold, cap) : threshold;
}

export function keptTokenBudget(model: ResolvedModel, overhead: number, summaryLimit: number, cap = 0): number {
  const threshold = thresholdTokens(model, cap);
  return Math.max(0, Math.min(Math.floor(model.context_window * KEPT_SHARE_MAX), Math.floor(threshold / 2) - overhead - summaryLimit));
}

/**
 * Splits the context: the newest entries within `keptBudget` stay, the rest is summarized. The kept part
 * never starts with tool results (their calls would be gone). `lastTurnOnly` (a manual /compact) keeps
 * at most the latest turn, from its prompt on. Null when there is nothing to summarize.
 */
export function planCompaction(conversation: Conversation, keptBudget: number, lastTurnOnly = false): CompactionPlan | null {
  const entries = contextEntries(conversation);
  const floor = lastTurnOnly ? entries.findLastIndex((e) => e.role === "user" && e.origin === "prompt") : 0;
  let cutAt = entries.length;
  let kept = 0;
  for (let i = entries.length - 1; i >= Math.max(floor, 0); i--) {
    const t = entryTokens(entries[i]!);
    if (kept + t > keptBudget) break;
    kept += t;
    cutAt = i;
  }
  // Something must be summarized, or the compaction gains nothing.
  if (cutAt === 0) cutAt = 1;
  while (cutAt < entries.length && entries[cutAt]!.role === "tool_results") cutAt++;
  const summarize = entries.slice(0, cutAt);
  if (summarize.length === 0) return null;
  const keptEntries = entries.slice(cutAt);
  return { summarize, kept: keptEntries, keptTokens: keptEntries.reduce((n, e) => n + entryTokens(e), 0) };
}
