// The engine's spans: a turn, each provider request inside it, each tool call. Attribute names follow
// OpenTelemetry's GenAI conventions where one exists (gen_ai.*), else agent.*. Only names, ids, counts
// and statuses are recorded: never prompt text, model output, tool arguments or tool output.
//
// Parents are found without an async context (AsyncLocalStorage slows every await under Bun): a turn's
// provider and tool spans find it through the session's own objects (its callDeps and toolContext), and
// a tool-server call (src/telemetry/mcp-spans.ts) finds its tool call's span by the call id.
import type { AgentRuntime } from "../agent/runtime.ts";
import type { ToolCallStatus } from "../agent/conversation.ts";
import type { StreamEvent, Usage } from "../providers/events.ts";
import { errorKind, type TraceSpan, type Tracer } from "./tracer.ts";

/** The running turn's span, under the session objects its provider and tool calls receive. */
const turnSpans = new WeakMap<object, TraceSpan>();
/** Running tool calls' spans by call id (provider call ids are unique in practice; a clash only misparents a span). */
const toolSpans = new Map<string, TraceSpan>();

/** The span of the running tool call with this id, for the work it does (a tool-server call). */
export function toolCallSpan(callId: string | undefined): TraceSpan | undefined {
  return callId === undefined ? undefined : toolSpans.get(callId);
}

// Cache and reasoning counts only when there are some: every attribute is encoded in every export.
const usageAttributes = (usage: Usage) => ({
  "gen_ai.usage.input_tokens": usage.input_tokens,
  "gen_ai.usage.output_tokens": usage.output_tokens,
  "agent.usage.cache_read_tokens": usage.cache_read_tokens || undefined,
  "agent.usage.cache_write_tokens": usage.cache_write_tokens || undefined,
  "agent.usage.reasoning_tokens": usage.reasoning_tokens || undefined,
});

/** Runs one turn inside an `agent.turn` span; records how it stopped and the turn's token usage. */
export async function traceTurn<T extends { stop: string; error?: { code: string } }>(rt: AgentRuntime, turnId: string, usage: () => Usage, fn: () => Promise<T>): Promise<T> {
  if (!rt.tracer?.enabled) return fn();
  const span = rt.tracer.start("agent.turn", { "gen_ai.conversation.id": rt.sessionId, "agent.turn.id": turnId, "agent.model": rt.model.key, "gen_ai.request.model": rt.model.provider_name, "agent.facet": rt.facet });
  turnSpans.set(rt.callDeps, span);
  turnSpans.set(rt.toolContext, span);
  try {
    const outcome = await fn();
    span.setAttributes({ "agent.turn.stop_reason": outcome.stop, ...usageAttributes(usage()) });
    if (outcome.error) span.fail(outcome.error.code);
    return outcome;
  } catch (error) {
    span.fail(errorKind(error));
    throw error;
  } finally {
    turnSpans.delete(rt.callDeps);
    turnSpans.delete(rt.toolContext);
    span.end();
  }
}

/**
 * Runs one tool call inside an `execute_tool <name>` span (a child of the turn whose tool context
 * `scope` is); `status` reads the call's result once it ran.
 */
export function traceToolCall(tracer: Tracer | undefined, scope: object, call: { call_id: string; name: string }, status: () => ToolCallStatus | undefined, fn: () => Promise<void>): Promise<void> {
  if (!tracer?.enabled) return fn();
  const attributes = { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": call.name, "gen_ai.tool.call.id": call.call_id };
  return tracer.run(
    `execute_tool ${call.name}`,
    attributes,
    async (span) => {
      toolSpans.set(call.call_id, span);
      try {
        await fn();
      } finally {
        toolSpans.delete(call.call_id);
      }
      const result = status();
      span.setAttributes({ "agent.tool.status": result });
      if (result === "error") span.fail("tool_error");
    },
    "internal",
    turnSpans.get(scope),
  );
}

export interface ProviderSpanInfo {
  provider: string;
  protocol: string;
  /** The request's model, known once the first attempt is built. */
  model: () => string;
  /** The call's dependencies: the running turn's span is found under them. */
  scope: object;
}

/**
 * Wraps a provider call's event stream in a `chat` client span: model, token usage, stop reason and the
 * number of retries. Without an enabled tracer the stream is returned as it is. The wrapper forwards
 * `next` with one `then` rather than through another async generator (measurably cheaper per event).
 */
export function traceProviderCall(tracer: Tracer | undefined, info: ProviderSpanInfo, events: AsyncGenerator<StreamEvent>): AsyncGenerator<StreamEvent> {
  if (!tracer?.enabled) return events;
  const span = tracer.start("chat", { "gen_ai.operation.name": "chat", "gen_ai.provider.name": info.provider, "agent.provider.protocol": info.protocol }, "client", turnSpans.get(info.scope));
  let retries = 0;
  let usage: Usage | null = null;
  let stop: string | null = null;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    span.setAttributes({ "gen_ai.request.model": info.model() || undefined, "agent.provider.retries": retries, "gen_ai.response.finish_reasons": stop ?? undefined, ...(usage ? usageAttributes(usage) : {}) });
    span.end();
  };
  const observe = (result: IteratorResult<StreamEvent>): IteratorResult<StreamEvent> => {
    if (result.done) end();
    else {
      const e = result.value;
      if (e.type === "retry") retries++;
      else if (e.type === "usage") usage = e.usage;
      else if (e.type === "done") {
        usage = e.usage;
        stop = e.stop_reason;
      }
    }
    return result;
  };
  const failed = (error: unknown): never => {
    if (!ended) {
      const status = (error as { status?: unknown }).status;
      span.setAttributes({ "http.response.status_code": typeof status === "number" ? status : undefined });
      span.fail(errorKind(error));
      end();
    }
    throw error;
  };
  const wrapped: AsyncGenerator<StreamEvent> = {
    next: (...args) => events.next(...args).then(observe, failed),
    return: (value) => {
      end();
      return events.return(value);
    },
    throw: (error) => events.throw(error).then(observe, failed),
    [Symbol.asyncIterator]: () => wrapped,
    [Symbol.asyncDispose]: async () => {
      end();
      await events.return(undefined);
    },
  };
  return wrapped;
}
