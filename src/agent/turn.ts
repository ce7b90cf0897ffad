// One turn: the user's input, then model -> tool calls -> results -> model ... until a reply without tool
// calls, the max_tool_turns budget, exit_tool, an error or an interrupt. History stays consistent on every
// path: each tool call of the conversation gets a result.
import { CONTINUATION_PROMPT, callProvider } from "../providers/call.ts";
import { ProviderError } from "../providers/errors.ts";
import type { StopReason, Usage } from "../providers/events.ts";
import { emptyUsage } from "../providers/events.ts";
import type { ProviderRequest, ToolChoice } from "../providers/request.ts";
import type { AgentRuntime } from "./runtime.ts";
import type { Conversation, UserContentPart } from "./conversation.ts";
import type { EngineErrorInfo, EngineEvent, TurnStopReason } from "./events.ts";
import { MessageStream, addUsage } from "./message-stream.ts";
import { modelRequest } from "./model-request.ts";
import { partialPrefix } from "./provider-messages.ts";
import { runToolCalls, type ToolCallsDeps } from "./tool-calls.ts";
import { wrapReminder } from "./reminders.ts";
import { traceTurn } from "../telemetry/engine-spans.ts";
import { compactAfterOverflow, compactIfNeeded } from "./compaction/compact.ts";
import { stopHook, userPromptSubmit } from "./hooks/engine-hooks.ts";

/** Continuation prompts after `provider_stream_max_lifetime_secs` cuts, per turn, before giving up. */
export const MAX_CONTINUATIONS = 5;

/** Times per turn a Stop hook may send the model back to work (each time it is told stop_hook_active). */
export const MAX_STOP_HOOK_CONTINUATIONS = 8;

export interface TurnInput {
  turnId: string;
  content: UserContentPart[];
  /** The id the submitted input got; the user message keeps it. */
  messageId: string;
  signal: AbortSignal;
  /** `continuation`: an automatic turn for an open goal. Default `prompt`. */
  origin?: "prompt" | "continuation";
}

interface TurnOutcome {
  stop: TurnStopReason;
  error?: EngineErrorInfo;
}

export async function runTurn(rt: AgentRuntime, conversation: Conversation, input: TurnInput): Promise<void> {
  const { turnId, signal } = input;
  const emit = (e: EngineEvent) => rt.emit(e);
  let usage: Usage = emptyUsage();
  emit({ type: "turn_started", turn_id: turnId, model: rt.model.key, facet: rt.facet });
  // A typed prompt passes the UserPromptSubmit hooks first: a blocked one never enters the conversation.
  const submitted = (input.origin ?? "prompt") === "prompt" ? await userPromptSubmit(rt.hooks, promptText(input.content), turnId, signal) : {};
  if (submitted.blocked) {
    emit({ type: "notice", level: "warning", message: `Your prompt was blocked by a UserPromptSubmit hook: ${submitted.blocked}` });
    emit({ type: "turn_completed", turn_id: turnId, stop_reason: "error", usage, error: { code: "hook_blocked", message: submitted.blocked } });
    return;
  }
  const content = submitted.context ? [...input.content, { type: "text" as const, text: `<hook-context event="UserPromptSubmit">\n${submitted.context}\n</hook-context>` }] : input.content;
  emit({ type: "user_message", turn_id: turnId, message: { id: input.messageId, role: "user", origin: input.origin ?? "prompt", content, created_at: rt.clock.now() } });
  const outcome = await traceTurn(rt, turnId, () => usage, async (): Promise<TurnOutcome> => {
    let toolTurns = 0;
    let stopHookRuns = 0;
    let continuations = 0;
    let overflowCompacted = false;
    for (;;) {
      if (signal.aborted) return { stop: "interrupted" };
      const lastRound = rt.maxToolTurns > 0 && toolTurns === rt.maxToolTurns - 1;
      for (const message of rt.inbox?.take(toolTurns === 0 && continuations === 0) ?? []) emit({ type: "user_message", turn_id: turnId, message });
      for (const text of rt.reminders.collect({ conversation, lastToolRound: lastRound, model: rt.model })) {
        addUserText(rt, turnId, "reminder", text);
      }
      const call = await callModel(rt, conversation, turnId, signal);
      usage = addUsage(usage, call.usage);
      // Too long for the provider despite the estimate: compact once and call again.
      if (call.error?.code === "context_length_exceeded" && !overflowCompacted) {
        overflowCompacted = true;
        const failed = await compactAfterOverflow(rt, conversation, turnId, signal, call.error);
        if (!failed) continue;
        return failed.code === "cancelled" ? { stop: "interrupted" } : { stop: "error", error: failed };
      }
      if (call.error) return call.error.code === "cancelled" ? { stop: "interrupted" } : { stop: "error", error: call.error };
      const calls = call.stream.toolCalls();
      if (calls.length === 0) {
        if (signal.aborted) return { stop: "interrupted" };
        if (call.stream.stopReason === "max_lifetime" && continuations < MAX_CONTINUATIONS) {
          continuations++;
          addUserText(rt, turnId, "continuation", CONTINUATION_PROMPT);
          continue;
        }
        const stop = stopFromModel(call.stream.stopReason);
        // A Stop hook may send the model back to work, with its reason as a reminder.
        if (stop === "end_turn" && stopHookRuns < MAX_STOP_HOOK_CONTINUATIONS) {
          const goOn = await stopHook(rt.hooks, stopHookRuns > 0, turnId, signal);
          if (goOn !== null && !signal.aborted) {
            stopHookRuns++;
            addUserText(rt, turnId, "reminder", `<hook-feedback event="${rt.hooks?.role === "subagent" ? "SubagentStop" : "Stop"}">\n${goOn}\n</hook-feedback>`);
            continue;
          }
        }
        return { stop };
      }
      const results = await runToolCalls(
        calls,
        { ...toolCallsDeps(rt, turnId), maxConcurrent: rt.model.max_tool_batch_size, emit, authorize: rt.authorize, scrub: rt.scrub, tracer: rt.tracer },
        signal,
      );
      toolTurns++;
      if (signal.aborted) return { stop: "interrupted" };
      if (results.some((r) => r.name === "exit_tool" && r.status === "completed")) return { stop: "exit_tool" };
      if (rt.maxToolTurns > 0 && toolTurns >= rt.maxToolTurns) {
        const limit: TurnOutcome = {
          stop: "max_tool_turns",
          error: { code: "max_tool_turns", message: `stopped after ${toolTurns} tool round-trips (daemon.max_tool_turns); send a message to let the agent go on` },
        };
        const wrapUp = await finalAnswer(rt, conversation, turnId, signal);
        usage = addUsage(usage, wrapUp.usage);
        if (wrapUp.error) return wrapUp.error.code === "cancelled" ? { stop: "interrupted" } : { stop: "error", error: wrapUp.error };
        return limit;
      }
    }
  });
  rt.checkpoints?.settle(turnId);
  emit({ type: "turn_completed", turn_id: turnId, stop_reason: outcome.stop, usage, ...(outcome.error ? { error: outcome.error } : {}) });
}

/** The typed text of a prompt (what UserPromptSubmit hooks get as `prompt`). */
function promptText(content: readonly UserContentPart[]): string {
  return content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
}

/** A reminder or continuation prompt the engine adds to the conversation. */
function addUserText(rt: AgentRuntime, turnId: string, origin: "reminder" | "continuation", text: string): void {
  rt.emit({ type: "user_message", turn_id: turnId, message: { id: rt.newId("msg"), role: "user", origin, content: [{ type: "text", text }], created_at: rt.clock.now() } });
}

function stopFromModel(reason: StopReason | null): TurnStopReason {
  if (reason === "refusal" || reason === "content_filter") return "refusal";
  if (reason === "max_tokens") return "max_tokens";
  return "end_turn";
}

export const BUDGET_SPENT =
  "This turn's tool budget (daemon.max_tool_turns) is used up. Answer the user now in text, without calling tools: say what you did, what is left, and how to go on.";

/**
 * After the last allowed tool round, one more model call for a text answer: forced with tool_choice
 * `none` where the model supports forcing, else asked for by the `tool_choice` reminder. Tool calls it
 * still makes are answered as not run.
 */
async function finalAnswer(rt: AgentRuntime, conversation: Conversation, turnId: string, signal: AbortSignal): Promise<ModelCall> {
  const forced = rt.model.forced_tool_choice_supported;
  if (!forced && rt.reminders.enabled("tool_choice")) {
    const text = wrapReminder("tool_choice", BUDGET_SPENT);
    addUserText(rt, turnId, "reminder", text);
  }
  const call = await callModel(rt, conversation, turnId, signal, forced ? { type: "none" } : null);
  const calls = call.stream.toolCalls();
  if (!call.error && calls.length > 0) {
    await runToolCalls(calls, unrunDeps(rt, turnId, async () => ({ allowed: false, message: `Not run: ${BUDGET_SPENT}` })), signal);
  }
  return call;
}

interface ModelCall {
  stream: MessageStream;
  usage: Usage;
  error?: EngineErrorInfo;
}

async function callModel(rt: AgentRuntime, conversation: Conversation, turnId: string, signal: AbortSignal, toolChoice: ToolChoice | null = null): Promise<ModelCall> {
  // Every model call, the first of a turn or one between tool rounds, first compacts a context that is too full.
  const compactionError = await compactIfNeeded(rt, conversation, turnId, signal);
  if (compactionError) return { stream: new MessageStream(rt.newId("msg"), () => rt.newId("prt"), () => {}), usage: emptyUsage(), error: compactionError };
  const messageId = rt.newId("msg");
  rt.emit({ type: "assistant_message_started", turn_id: turnId, message_id: messageId, model: rt.model.key, created_at: rt.clock.now() });
  const stream = new MessageStream(messageId, () => rt.newId("prt"), (e) => rt.emit(e));
  const buildRequest = (partial: Parameters<typeof partialPrefix>[0]): ProviderRequest => {
    const prefix = partialPrefix(partial);
    return modelRequest(rt, conversation, { toolChoice, ...(prefix ? { after: [prefix] } : {}) });
  };
  let error: EngineErrorInfo | undefined;
  try {
    for await (const e of callProvider({ provider: rt.provider, retry: rt.retry, deps: rt.callDeps, buildRequest, signal })) {
      if (e.type === "retry") {
        rt.emit({ type: "retry", turn_id: turnId, attempt: e.attempt, max_retries: e.max_retries, delay_ms: e.delay_ms, status: e.status, code: e.code, reason: e.reason });
      }
      stream.push(e);
    }
  } catch (caught) {
    stream.closeOpen();
    if (signal.aborted) error = { code: "cancelled", message: "interrupted" };
    else if (caught instanceof ProviderError) error = { code: caught.kind, message: caught.message, status: caught.status };
    else error = { code: "engine", message: (caught as Error)?.message ?? String(caught) };
  }
  const usd = rt.costOf?.(rt.model.key, stream.usage) ?? null;
  const cost = usd === null ? {} : { cost_usd: usd };
  rt.emit({ type: "assistant_message_completed", message_id: messageId, usage: stream.usage, stop_reason: stream.stopReason, ...cost });
  if (error) {
    // Completed tool calls of an interrupted or failed message still need results for a consistent history.
    const calls = stream.toolCalls();
    if (calls.length > 0) await runToolCalls(calls, unrunDeps(rt, turnId, async () => ({ allowed: false, message: "not run" })), AbortSignal.abort());
  }
  return { stream, usage: stream.usage, ...(error ? { error } : {}) };
}

/** What every batch of tool calls in this turn shares: the turn, the tools, their context and clock. */
function toolCallsDeps(rt: AgentRuntime, turnId: string): Pick<ToolCallsDeps, "turnId" | "resultsMessageId" | "tools" | "toolNames" | "refusal" | "ctx" | "clock" | "checkpoints" | "hooks"> {
  return {
    ...(rt.checkpoints ? { checkpoints: rt.checkpoints } : {}),
    turnId,
    resultsMessageId: rt.newId("msg"),
    tools: (name) => rt.tools.get(name),
    toolNames: () => rt.tools.list().map((t) => t.name),
    refusal: (name) => rt.tools.refusal?.(name) ?? null,
    ctx: rt.toolContext,
    clock: rt.clock,
    ...(rt.hooks ? { hooks: rt.hooks } : {}),
  };
}

/** Answers calls without running them: cancelled (aborted signal) or refused by `authorize`. */
function unrunDeps(rt: AgentRuntime, turnId: string, authorize: ToolCallsDeps["authorize"]): ToolCallsDeps {
  // Calls answered without running pass no hooks.
  const { hooks: _none, ...shared } = toolCallsDeps(rt, turnId);
  return { ...shared, maxConcurrent: 1, emit: (e) => rt.emit(e), authorize, scrub: (t) => t };
}
