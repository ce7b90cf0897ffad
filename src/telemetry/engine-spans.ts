// The engine's spans: a turn, each provider request inside it, each tool call. Attribute names follow
// OpenTelemetry's GenAI conventions where one exists (gen_ai.*), else agent.*. Only names, ids, counts
// and statuses are recorded: never prompt text, model output, tool arguments or tool output.
//
// Parents are found without an async context (AsyncLocalStorage slows every await under Bun): a turn's
// provider and tool spans find it through the session's own objects (its callDeps and toolContext), and
// a tool-server call (src/telemetry/mcp-spans.ts) finds its tool call's span by the call id.
import type { StreamEvent, Usage } from "../providers/events.ts";
import { errorKind, TURN_SPAN_NAME, type TraceSpan, type Tracer } from "./tracer.ts";

/** What a turn's span reads of the engine's runtime (AgentRuntime fits it; telemetry/ does not import the engine). */
export interface TurnSpanScope {
  tracer?: Tracer;
  sessionId: string;
  facet: string;
  model: { key: string; provider_name: string };
  /** The objects the turn's provider and tool calls receive: their spans find the turn's under them. */
  callDeps: object;
  toolContext: object;
}

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
export async function traceTurn<T extends { stop: string; error?: { code: string } }>(rt: TurnSpanScope, turnId: string, usage: () => Usage, fn: () => Promise<T>): Promise<T> {
  if (!rt.tracer?.enabled) return fn();
  const span = rt.tracer.start(TURN_SPAN_NAME, { "gen_ai.conversation.id": rt.sessionId, "agent.turn.id": turnId, "agent.model": rt.model.key, "gen_ai.request.model": rt.model.provider_name, "agent.facet": rt.facet });
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
 * `scope` is); `status` reads the call's result once it ran. A throw marks the span failed (with the
 * error's kind) and is rethrown.
 */
export function traceToolCall(tracer: Tracer | undefined, scope: object, call: { call_id: string; name: string }, status: () => string | undefined, fn: () => Promise<void>): Promise<void> {
  if (!tracer?.enabled) return fn();
  return tracedToolCall(tracer, scope, call, status, fn);
}

async function tracedToolCall(tracer: Tracer, scope: object, call: { call_id: string; name: string }, status: () => string | undefined, fn: () => Promise<void>): Promise<void> {
  const span = tracer.start(`execute_tool ${call.name}`, { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": call.name, "gen_ai.tool.call.id": call.call_id }, "internal", turnSpans.get(scope));
  toolSpans.set(call.call_id, span);
  try {
    await fn();
  } catch (error) {
    span.fail(errorKind(error));
    span.end();
    throw error;
  } finally {
    toolSpans.delete(call.call_id);
  }
  const result = status();
  span.setAttributes({ "agent.tool.status": result });
  if (result === "error") span.fail("tool_error");
  span.end();
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
 * number of retries. Without an enabled tracer the stream is returned as it is.
 */
export function traceProviderCall(tracer: Tracer | undefined, info: ProviderSpanInfo, events: AsyncGenerator<StreamEvent>): AsyncGenerator<StreamEvent> {
  if (!tracer?.enabled) return events;
  return new ChatSpanStream(tracer.start("chat", { "gen_ai.operation.name": "chat", "gen_ai.provider.name": info.provider, "agent.provider.protocol": info.protocol }, "client", turnSpans.get(info.scope)), info, events);
}

/**
 * The provider stream seen through its chat span: `next` forwards with one `then` per event (a second
 * async generator cost more), and the span's figures are fields of the wrapper (one object per provider
 * request, not a closure per figure).
 */
class ChatSpanStream implements AsyncGenerator<StreamEvent> {
  private retries = 0;
  private usage: Usage | null = null;
  private stop: string | null = null;
  private ended = false;

  constructor(
    private readonly span: TraceSpan,
    private readonly info: ProviderSpanInfo,
    private readonly events: AsyncGenerator<StreamEvent>,
  ) {}

  private readonly observe = (result: IteratorResult<StreamEvent>): IteratorResult<StreamEvent> => {
    if (result.done) this.end();
    else {
      const e = result.value;
      if (e.type === "retry") this.retries++;
      else if (e.type === "usage") this.usage = e.usage;
      else if (e.type === "done") {
        this.usage = e.usage;
        this.stop = e.stop_reason;
      }
    }
    return result;
  };

  private readonly failed = (error: unknown): never => {
    if (!this.ended) {
      const status = (error as { status?: unknown }).status;
      this.span.setAttributes({ "http.response.status_code": typeof status === "number" ? status : undefined });
      this.span.fail(errorKind(error));
      this.end();
    }
    throw error;
  };

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    const usage = this.usage;
    // Cache and reasoning counts only when there are some (as usageAttributes).
    this.span.setAttributes({
      "gen_ai.request.model": this.info.model() || undefined,
      "agent.provider.retries": this.retries,
      "gen_ai.response.finish_reasons": this.stop ?? undefined,
      "gen_ai.usage.input_tokens": usage?.input_tokens,
      "gen_ai.usage.output_tokens": usage?.output_tokens,
      "agent.usage.cache_read_tokens": usage?.cache_read_tokens || undefined,
      "agent.usage.cache_write_tokens": usage?.cache_write_tokens || undefined,
      "agent.usage.reasoning_tokens": usage?.reasoning_tokens || undefined,
    });
    this.span.end();
  }

  next(value?: unknown): Promise<IteratorResult<StreamEvent>> {
    return this.events.next(value).then(this.observe, this.failed);
  }

  return(value: unknown): Promise<IteratorResult<StreamEvent>> {
    this.end();
    return this.events.return(value as never);
  }

  throw(error: unknown): Promise<IteratorResult<StreamEvent>> {
    return this.events.throw(error).then(this.observe, this.failed);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.end();
    await this.events.return(undefined as never);
  }
}
