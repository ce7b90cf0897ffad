// A compaction pass: a model writes a structured summary of the context, recent entries stay word for
// word, and a `context_compacted` event makes the provider-visible context start from the summary.
// By default the session's own model writes it from the session's own request (same system prompt, tools
// and messages, a summary instruction appended), so the provider's cached prefix is reused and the summary
// costs little more than its output; the mini model (daemon.compaction_model: mini), an overflow and every
// retry read a transcript instead. A failed summary call (provider error, empty answer) is retried with a
// more stripped transcript, and a stronger instruction after an empty one; when every attempt fails the
// context is left exactly as it was and the caller gets a typed error.
import { callProvider } from "../../providers/call.ts";
import { preCompact } from "../hooks/engine-hooks.ts";
import { ProviderError } from "../../providers/errors.ts";
import { emptyUsage, type Usage } from "../../providers/events.ts";
import type { ProviderRequest } from "../../providers/request.ts";
import type { Conversation } from "../conversation.ts";
import type { EngineErrorInfo } from "../events.ts";
import { addUsage } from "../message-stream.ts";
import { modelRequest } from "../model-request.ts";
import type { AgentRuntime } from "../runtime.ts";
import { contextEntries, summaryMessageText } from "./context.ts";
import { contextTokens, overheadTokens, textTokens } from "./estimate.ts";
import { filesTouched, type FilesTouched } from "./files.ts";
import { keptTokenBudget, planCompaction, summaryTokenLimit, thresholdTokens, type CompactionPlan } from "./plan.ts";
import type { Summarizer } from "./settings.ts";
import { renderTranscript, type Transcript } from "./transcript.ts";
import SECTIONS from "./summary-sections.txt" with { type: "text" };
import SUMMARIZER from "./summarizer-prompt.txt" with { type: "text" };
import REQUEST from "./request.txt" with { type: "text" };
import HISTORY_REQUEST from "./history-request.txt" with { type: "text" };
import EMPTY_RETRY from "./empty-retry.txt" with { type: "text" };

const SYSTEM = SUMMARIZER.replace("{{sections}}", () => SECTIONS.trim());

export interface CompactOptions {
  /** The turn the compaction runs in; null for /compact. */
  turnId: string | null;
  reason: "threshold" | "manual" | "overflow";
  /** /compact's arguments: what the summary should focus on. */
  instructions?: string;
  signal: AbortSignal;
}

export type CompactResult = { ok: true; summary: string; tokensBefore: number; tokensAfter: number } | { ok: false; error: EngineErrorInfo };

/** Room left for framing in the summarizer's window (its own estimate may be off). */
const SUMMARIZER_MARGIN = 0.05;

function overheadOf(rt: AgentRuntime): number {
  return overheadTokens(rt.systemPrompt(), rt.toolSpecs());
}

function summarizerOf(rt: AgentRuntime): Summarizer {
  return rt.compaction.summarizer ?? { model: rt.model, provider: rt.provider, reasoning: null };
}

/** The context size the next request would have, in (estimated) tokens. */
export function currentContextTokens(rt: AgentRuntime, conversation: Conversation): number {
  return contextTokens(conversation, () => overheadOf(rt));
}

/**
 * What a compaction would do now, or null when there is nothing to summarize. /compact keeps at most the
 * latest turn; after an overflow the estimates were too low, so half the usual tail is kept.
 */
export function compactionPlan(rt: AgentRuntime, conversation: Conversation, reason: CompactOptions["reason"] = "threshold"): CompactionPlan | null {
  const limit = summaryTokenLimit(rt.model, summarizerOf(rt).model);
  const budget = keptTokenBudget(rt.model, overheadOf(rt), limit, rt.compaction.contextCap);
  return planCompaction(conversation, reason === "overflow" ? Math.floor(budget / 2) : budget, reason === "manual");
}

/**
 * Before a model call inside a turn: compacts when the context has reached the model's
 * compaction_threshold. Returns the error that must end the turn, or null to go on.
 */
export async function compactIfNeeded(rt: AgentRuntime, conversation: Conversation, turnId: string, signal: AbortSignal): Promise<EngineErrorInfo | null> {
  if (currentContextTokens(rt, conversation) < thresholdTokens(rt.model, rt.compaction.contextCap)) return null;
  const result = await compactContext(rt, conversation, { turnId, reason: "threshold", signal });
  // A context that is all latest turn cannot shrink here; the provider's answer decides (see overflow).
  return result.ok || result.error.code === "nothing_to_compact" ? null : result.error;
}

/**
 * The provider refused a request as too long for the window (our estimate was low): compact once, then the
 * turn retries the call. Returns the error that must end the turn, or null to retry.
 */
export async function compactAfterOverflow(rt: AgentRuntime, conversation: Conversation, turnId: string, signal: AbortSignal, overflow: EngineErrorInfo): Promise<EngineErrorInfo | null> {
  const result = await compactContext(rt, conversation, { turnId, reason: "overflow", signal });
  if (result.ok) return null;
  if (result.error.code !== "nothing_to_compact") return result.error;
  return { ...overflow, message: `${overflow.message} (nothing older is left to compact: the latest prompt or tool output alone is too long)` };
}

export async function compactContext(rt: AgentRuntime, conversation: Conversation, opts: CompactOptions): Promise<CompactResult> {
  const plan = compactionPlan(rt, conversation, opts.reason);
  if (!plan) return { ok: false, error: { code: "nothing_to_compact", message: "there is nothing to compact yet" } };
  await preCompact(rt.hooks, opts.reason === "manual", opts.instructions, opts.turnId, opts.signal);
  const summarizer = summarizerOf(rt);
  const tokensBefore = currentContextTokens(rt, conversation);
  const overhead = overheadOf(rt);
  rt.emit({ type: "compaction_started", turn_id: opts.turnId, reason: opts.reason, tokens_before: tokensBefore, model: summarizer.model.key });
  const attempts = rt.compaction.maxRetries + 1;
  let usage: Usage = emptyUsage();
  let lastFailure = "";
  let emptyBefore = false;
  // The first attempt reuses the session's own request when it can; retries strip a transcript further each time.
  const fromHistory = historyFits(rt, conversation, opts) ? 1 : 0;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const shape = { level: attempt - fromHistory, stronger: emptyBefore, instructions: opts.instructions };
    const request = attempt < fromHistory ? historyRequest(rt, conversation, shape) : summaryRequest(rt, conversation, plan, summarizer, shape);
    const call = await summarize(rt, summarizer, request, opts.signal);
    usage = addUsage(usage, call.usage);
    if (call.cancelled) return fail(rt, opts, attempt + 1, { code: "cancelled", message: "compaction interrupted; the conversation is unchanged" });
    if (call.text) {
      const summary = withLatestRequest(call.text, plan);
      const tokensAfter = overhead + textTokens(summaryMessageText(summary)) + plan.keptTokens;
      if (tokensAfter + rt.model.max_output_tokens_per_turn > rt.model.context_window) {
        return fail(rt, opts, attempt + 1, {
          code: "compaction_failed",
          message: `even compacted, the context (about ${tokensAfter} tokens, mostly the system prompt and ${rt.toolSpecs().length} tool definitions) leaves no room for the output limit of ${rt.model.max_output_tokens_per_turn} tokens in ${rt.model.key}'s window of ${rt.model.context_window}; the conversation is unchanged. Disable tools (daemon.disabled_tools) or use a model with a larger window.`,
        });
      }
      rt.emit({
        type: "context_compacted",
        turn_id: opts.turnId,
        summary,
        kept_from_message_id: plan.kept[0]?.id ?? null,
        tokens_before: tokensBefore,
        tokens_after: tokensAfter,
        model: summarizer.model.key,
        attempts: attempt + 1,
        usage,
      });
      return { ok: true, summary, tokensBefore, tokensAfter };
    }
    // Once the model has answered with nothing, every later attempt insists.
    emptyBefore ||= call.error === null;
    lastFailure = call.error ?? "the summary was empty";
    if (attempt + 1 < attempts) {
      rt.emit({ type: "notice", level: "warning", message: `compaction attempt ${attempt + 1} of ${attempts} failed (${lastFailure}); retrying with a shorter transcript` });
    }
  }
  const tried = attempts === 1 ? "" : ` after ${attempts} attempts`;
  const again = opts.reason === "manual" ? "Run /compact again later" : "Send a message to try again";
  const clear = rt.compaction.clearDisabled ? "" : ", or start a fresh context with /clear";
  return fail(rt, opts, attempts, {
    code: "compaction_failed",
    message: `compaction failed${tried}: ${lastFailure}. Nothing was lost: the conversation is unchanged. ${again}${clear}.`,
  });
}

/** Longest latest request carried word for word (the rest is in the summary anyway). */
const LATEST_REQUEST_MAX = 8_000;

/**
 * When the user's latest request is summarized away (a long turn compacted between tool rounds), it is
 * appended word for word: the model keeps working on exactly what was asked.
 */
function withLatestRequest(summary: string, plan: CompactionPlan): string {
  if (plan.kept.some((e) => e.role === "user" && e.origin === "prompt")) return summary;
  const latest = plan.summarize.findLast((e) => e.role === "user" && e.origin === "prompt");
  if (latest?.role !== "user") return summary;
  const text = latest.content.map((p) => (p.type === "text" ? p.text : `[image ${p.media_type}]`)).join("\n");
  const shown = text.length > LATEST_REQUEST_MAX ? `${text.slice(0, LATEST_REQUEST_MAX)}\n[... ${text.length - LATEST_REQUEST_MAX} characters cut]` : text;
  return `${summary.trim()}\n\n## Latest request (word for word)\n${shown}`;
}

function fail(rt: AgentRuntime, opts: CompactOptions, attempts: number, error: EngineErrorInfo): CompactResult {
  rt.emit({ type: "compaction_failed", turn_id: opts.turnId, attempts, error });
  return { ok: false, error };
}

/**
 * Whether the summary can be asked of the session's model over its own request: it writes the summaries
 * (no mini model configured), the provider has not just refused the context as too long, and the request
 * with the instruction and the summary's output fits the window by the estimate.
 */
function historyFits(rt: AgentRuntime, conversation: Conversation, opts: CompactOptions): boolean {
  if (rt.compaction.summarizer || opts.reason === "overflow") return false;
  const instruction = textTokens(HISTORY_REQUEST) + textTokens(SECTIONS) + 512;
  return currentContextTokens(rt, conversation) + instruction + rt.model.max_output_tokens_per_turn <= rt.model.context_window;
}

function filesText(files: FilesTouched): string {
  const { changed, read } = files;
  return [changed.length ? `Files changed by tools: ${changed.join(", ")}` : "", read.length ? `Files read: ${read.join(", ")}` : ""].filter(Boolean).join("\n");
}

/**
 * The session's own next request (system prompt, tools, messages: byte for byte what the previous call
 * sent, plus what came since) with the summary instruction as a last user message. Nothing is scrubbed:
 * it goes to the provider that already holds the conversation, and any change would break the prefix.
 */
function historyRequest(rt: AgentRuntime, conversation: Conversation, shape: RequestShape): ProviderRequest {
  const files = filesText(filesTouched(contextEntries(conversation)));
  const values: Record<string, string> = {
    sections: SECTIONS.trim(),
    files: files ? `\nFor the Files section, from the tool calls: ${files}\n` : "",
    instructions: shape.instructions ? `\nThe user asks the summary to: ${shape.instructions}\n` : "",
  };
  const text = HISTORY_REQUEST.replace(/\{\{(\w+)\}\}/g, (_, key: string) => values[key] ?? "").trimEnd();
  // The turn's own output limit too: a thinking budget needs it, and it is not part of the cached prefix.
  return modelRequest(rt, conversation, { after: [{ role: "user", content: [{ type: "text", text }] }] });
}

interface RequestShape {
  /** Strip level: the attempt number. */
  level: number;
  /** The previous answer was empty: insist. */
  stronger: boolean;
  instructions?: string;
}

function summaryRequest(rt: AgentRuntime, conversation: Conversation, plan: CompactionPlan, summarizer: Summarizer, shape: RequestShape): ProviderRequest {
  const limit = summaryTokenLimit(rt.model, summarizer.model);
  const previous = conversation.context?.summary;
  const frame = (transcript: Transcript) => {
    const files = filesText(transcript.files);
    const values: Record<string, string> = {
      previous: previous ? `The summary of the conversation before this part:\n<earlier-summary>\n${previous}\n</earlier-summary>\n\n` : "",
      transcript: transcript.text,
      files: files ? `\n${files}\n` : "",
      instructions: shape.instructions ? `\nThe user asks the summary to: ${shape.instructions}\n` : "",
    };
    // One pass, so a placeholder written inside the conversation itself is left alone.
    return REQUEST.replace(/\{\{(\w+)\}\}/g, (_, key: string) => values[key] ?? "").concat(shape.stronger ? `\n${EMPTY_RETRY}` : "");
  };
  const window = summarizer.model.context_window;
  const fixed = textTokens(SYSTEM) + textTokens(frame({ text: "", omitted: 0, files: { changed: [], read: [] } })) + 64;
  const room = Math.floor(window * (1 - SUMMARIZER_MARGIN)) - limit - fixed;
  // The summarizer may be another provider: secret words the user typed do not go there either.
  const text = rt.scrub(frame(renderTranscript(plan.summarize, shape.level, room)));
  return {
    model: summarizer.model.provider_name,
    system: SYSTEM,
    messages: [{ role: "user", content: [{ type: "text", text }] }],
    tools: [],
    max_output_tokens: limit,
    stop_sequences: [],
    reasoning: summarizer.reasoning,
    request_options: { ...summarizer.model.request_option_defaults },
    prompt_cache_key: rt.sessionId,
    model_config: { key: summarizer.model.key, api: summarizer.model.api, interleaved: summarizer.model.interleaved },
  };
}

interface SummaryCall {
  text: string;
  usage: Usage;
  /** Why the call failed, or null when it answered (possibly with nothing). */
  error: string | null;
  cancelled: boolean;
}

async function summarize(rt: AgentRuntime, summarizer: Summarizer, request: ProviderRequest, signal: AbortSignal): Promise<SummaryCall> {
  let text = "";
  let usage = emptyUsage();
  try {
    for await (const e of callProvider({ provider: summarizer.provider, retry: rt.retry, deps: rt.callDeps, buildRequest: () => request, signal })) {
      if (e.type === "text_delta") text += e.text;
      // A broken attempt's partial text is not a summary; the retry writes it again.
      else if (e.type === "retry") text = "";
      else if (e.type === "usage" || e.type === "done") usage = e.usage;
    }
  } catch (caught) {
    if (signal.aborted) return { text: "", usage, error: "interrupted", cancelled: true };
    const reason = caught instanceof ProviderError ? `${caught.kind}${caught.status ? ` ${caught.status}` : ""}: ${caught.message}` : ((caught as Error)?.message ?? String(caught));
    return { text: "", usage, error: `the summary model failed: ${reason}`, cancelled: false };
  }
  return { text: text.trim(), usage, error: null, cancelled: false };
}
