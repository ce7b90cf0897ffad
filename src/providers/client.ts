// One streaming provider call (one attempt): build the dialect's body, POST it, decode the SSE bytes
// into normalized events under stall and lifetime supervision.
import type { Clock } from "../util/clock.ts";
import type { StreamEvent, Usage } from "./events.ts";
import { emptyUsage } from "./events.ts";
import { ProviderError } from "./errors.ts";
import { type DeviceTokenSource, mergeHeaders, resolveAuth } from "./auth-headers.ts";
import { type FetchLike, postStream } from "./http.ts";
import type { ProtocolInfo } from "./protocols.ts";
import type { ProviderRequest } from "./request.ts";
import type { ResolvedProvider } from "./resolve.ts";
import type { StreamSettings } from "./settings.ts";
import { EventQueue } from "./event-queue.ts";
import { SseDecoder } from "./sse.ts";
import { readWithDeadlines, resolveStreamHealth } from "./stream-health.ts";
import type { TrustStore } from "./tls.ts";
import { type DialectDecoder, type Emit } from "./dialects/decoder.ts";
import { MessagesDecoder, buildMessagesBody } from "./dialects/a-messages.ts";
import { ChatCompletionsDecoder, buildChatBody } from "./dialects/b-chat-completions.ts";
import { ResponsesDecoder, buildResponsesBody } from "./dialects/b-responses.ts";
import { ModelApiError, describeModel } from "./families/resolve.ts";
import type { ModelApi } from "./families/types.ts";
import { checkRefusedOptions, explainRejection, familyHeaders } from "./families/wire.ts";
import { USER_AGENT } from "./user-agent.ts";

export interface ProviderCallDeps {
  clock: Clock;
  fetch?: FetchLike;
  trustStore?: TrustStore | null;
  devices?: DeviceTokenSource | null;
  stream?: StreamSettings | null;
  /** Daemon working directory (relative `test` script paths, call.ts). */
  cwd?: string;
}

export function createDecoder(provider: Pick<ResolvedProvider, "dialect" | "info">, emit: Emit, model: string | null = null): DialectDecoder {
  switch (provider.dialect) {
    case "a_messages":
      return new MessagesDecoder(emit);
    case "b_chat_completions":
      return new ChatCompletionsDecoder(emit, provider.info, model);
    case "b_responses":
      return new ResponsesDecoder(emit);
  }
}

type BodyProvider = Pick<ResolvedProvider, "dialect" | "info" | "cacheStrategy">;

/** The family description the request is built from; a configured cache_control_strategy wins over the family's. */
export function requestApi(provider: BodyProvider, request: ProviderRequest): ModelApi {
  let api: ModelApi;
  try {
    api = describeModel(provider.dialect, request.model, request.model_config?.api ?? null, { interleaved: request.model_config?.interleaved ?? null });
  } catch (error) {
    if (error instanceof ModelApiError)
      throw new ProviderError({ kind: "invalid_request", code: "unknown_model_family", message: `models.${request.model_config?.key ?? request.model}.${error.message}` });
    throw error;
  }
  if (provider.cacheStrategy) api = { ...api, cacheControl: provider.cacheStrategy === "breakpoints" ? "breakpoints" : "automatic" };
  return api;
}

export function buildRequestBody(provider: BodyProvider, given: ProviderRequest, api: ModelApi = requestApi(provider, given)): Record<string, unknown> {
  checkRefusedOptions(api, given);
  const request = api.toolResultImages === "none" ? withoutToolImages(given) : given;
  switch (provider.dialect) {
    case "a_messages":
      return buildMessagesBody(request, api);
    case "b_chat_completions":
      return buildChatBody(request, provider.info as ProtocolInfo, api);
    case "b_responses":
      return buildResponsesBody(request, api);
  }
}

export const TOOL_IMAGE_NOTE = "[image omitted: images from tools do not reach this model (its API family, or models.<name>.api.tool_result_images)]";

/** The request with images from tools replaced by a note (family or config says `none`). */
function withoutToolImages(request: ProviderRequest): ProviderRequest {
  if (!request.messages.some((m) => m.role === "tool_results" && m.results.some((r) => r.images?.length))) return request;
  return {
    ...request,
    messages: request.messages.map((m) =>
      m.role !== "tool_results"
        ? m
        : { ...m, results: m.results.map(({ images, ...r }) => (images?.length ? { ...r, output: [r.output, TOOL_IMAGE_NOTE].filter((t) => t.length > 0).join("\n") } : r)) },
    ),
  };
}

/** Streams one attempt. Throws ProviderError (kinds in errors.ts); a lifetime cut ends with `done{max_lifetime}`. */
export async function* streamOnce(
  provider: ResolvedProvider,
  request: ProviderRequest,
  deps: ProviderCallDeps,
  signal?: AbortSignal,
): AsyncGenerator<StreamEvent> {
  const api = requestApi(provider, request);
  const body = JSON.stringify(buildRequestBody(provider, request, api));
  const auth = await resolveAuth(provider.settings.auth, provider.authFormat, deps.devices ?? null);
  // A configured User-Agent wins (some gateways route by it); content type, betas and auth are ours.
  const headers = mergeHeaders(
    { "user-agent": USER_AGENT },
    provider.headers,
    { "content-type": "application/json", accept: "text/event-stream" },
    familyHeaders(api, request, provider.headers),
    auth.headers,
  );
  let res: Response;
  try {
    res = await postStream(provider.streamUrl!, headers, body, deps, signal, auth.secrets);
  } catch (error) {
    if (error instanceof ProviderError && error.status === 400 && error.kind === "invalid_request") throw explainRejection(error, provider.name, api, request);
    throw error;
  }
  yield* decodeResponseStream(res.body!, provider, deps.clock, deps.stream ?? null, signal, request.model);
}

/** Events handed on from one read before the decoder lets the event loop run (I/O, timers, the journal). */
export const EVENTS_PER_LOOP_TURN = 256;

const nextLoopTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Decodes a provider's SSE body into normalized events (also used by the benchmark and the fakes' tests). */
export async function* decodeResponseStream(
  body: ReadableStream<Uint8Array>,
  provider: Pick<ResolvedProvider, "dialect" | "info">,
  clock: Clock,
  stream: StreamSettings | null,
  signal?: AbortSignal,
  /** The model the request named (kept with a tool call's thought signature). */
  model: string | null = null,
): AsyncGenerator<StreamEvent> {
  const health = resolveStreamHealth(stream);
  // One read's events, consecutive deltas of one part merged (event-queue.ts).
  const queue = new EventQueue();
  let usage: Usage = emptyUsage();
  let finished = false;
  const decoder = createDecoder(
    provider,
    (e) => {
      if (e.type === "usage") usage = e.usage;
      else if (e.type === "done") finished = true;
      queue.push(e);
    },
    model,
  );
  const sse = new SseDecoder((event, data) => decoder.onSse(event, data));
  const reader = body.getReader();
  const startedAt = clock.now();
  let open = true;
  try {
    for (;;) {
      const r = await readWithDeadlines(reader, health, clock, startedAt);
      // Events decoded before a failure in the same chunk are still delivered, then the error.
      let failure: unknown = null;
      try {
        if (r.kind === "chunk") sse.push(r.value);
        else if (r.kind === "eof") {
          open = false;
          sse.end();
          decoder.end();
        }
      } catch (error) {
        failure = error;
      }
      if (failure) {
        yield* drain(queue);
        throw failure;
      }
      if (r.kind === "stalled") {
        throw new ProviderError({ kind: "stalled", code: "stream_stalled", message: `no data from the provider for ${r.idleMs / 1000} s (provider_stream_idle_timeout_secs)` });
      } else if (r.kind === "lifetime") {
        yield* drain(queue);
        yield { type: "done", stop_reason: "max_lifetime", raw_stop_reason: null, usage };
        return;
      }
      const events = queue.events;
      for (let i = 0; i < events.length; i++) {
        yield events[i]!;
        if ((i + 1) % EVENTS_PER_LOOP_TURN === 0) await nextLoopTurn();
      }
      queue.clear();
      if (finished || !open) return;
      // One read's events per event-loop turn: a provider faster than the engine always has the next
      // chunk ready, and its read resolves at once, so without this the whole answer ran as one chain
      // of microtasks (no request served, nothing committed or sent, until the turn ended).
      await nextLoopTurn();
    }
  } catch (error) {
    if (error instanceof ProviderError) throw error;
    if (signal?.aborted) throw new ProviderError({ kind: "cancelled", code: "cancelled", message: "provider request cancelled" });
    const e = error as Error & { code?: string };
    throw new ProviderError({ kind: "network", code: e.code ?? "connection_reset", message: `provider stream broke: ${e.message}` });
  } finally {
    if (open) await reader.cancel().catch(() => {});
  }
}

function* drain(queue: EventQueue): Generator<StreamEvent> {
  const events = [...queue.events];
  queue.clear();
  yield* events;
}
