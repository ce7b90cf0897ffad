// The offline demo's endpoint: an in-process HTTP server on 127.0.0.1 that answers Chat Completions
// requests from a `test` provider's script, as SSE. A demo turn therefore takes the path of every real
// call (request body, fetch, SSE decoder, dialect decoder, stream health), and the client has no branch
// for it. Started on the first call, one per process, and never keeps the process alive.
import type { Server } from "bun";
import type { StopReason, Usage } from "./events.ts";
import type { ProviderErrorKind } from "./errors.ts";
import type { ResolvedProvider } from "./resolve.ts";
import { TEST_PROVIDER_MODEL_LABEL, loadTestScript, scriptPathFromUrl, type ScriptedResponse } from "./test-provider.ts";

interface Loaded {
  path: string;
  script: ScriptedResponse[];
}

let server: Server<undefined> | null = null;
/** Script paths by the number in their URL (`/scripts/<n>/chat/completions`); one entry per path. */
const scripts: Loaded[] = [];

/**
 * The `test` provider as a Chat Completions provider on the in-process server. The script is read (and
 * checked: TestScriptError) on every call, so an edited script is picked up as before.
 */
export function scriptedProvider(provider: ResolvedProvider, cwd: string): ResolvedProvider {
  const path = scriptPathFromUrl(provider.base, cwd);
  const script = loadTestScript(path);
  let n = scripts.findIndex((s) => s.path === path);
  if (n < 0) n = scripts.push({ path, script }) - 1;
  else scripts[n]!.script = script;
  return { ...provider, dialect: "b_chat_completions", streamUrl: `${origin()}/scripts/${n}/chat/completions` };
}

function origin(): string {
  if (!server) {
    // error: a scripted broken stream (below) is not logged.
    server = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, fetch: answer, error: () => new Response(null, { status: 500 }) });
    server.unref();
  }
  return `http://127.0.0.1:${server.port}`;
}

async function answer(req: Request): Promise<Response> {
  const m = /^\/scripts\/(\d+)\/chat\/completions$/.exec(new URL(req.url).pathname);
  const loaded = m ? scripts[Number(m[1])] : undefined;
  if (!loaded || req.method !== "POST") return errorResponse(404, "not_found", "no such script");
  const body = (await req.json()) as { messages?: { role?: string }[] };
  const turn = (body.messages ?? []).filter((msg) => msg.role === "assistant").length;
  const r = loaded.script[turn];
  if (!r) return errorResponse(400, "script_exhausted", `test provider script '${loaded.path}' has no response #${turn + 1}`);
  if ("error" in r) return scriptedError(r.error);
  return sse(chatChunks(r, turn));
}

/** How a scripted error kind goes on the wire: an HTTP error the client maps back to the same kind. */
const HTTP_ERRORS: Partial<Record<ProviderErrorKind, [status: number, code: string]>> = {
  rate_limited: [429, "rate_limit_exceeded"],
  overloaded: [529, "overloaded_error"],
  context_length_exceeded: [400, "context_length_exceeded"],
  auth: [401, "authentication_error"],
  invalid_request: [400, "invalid_request_error"],
  server: [500, "server_error"],
};

function scriptedError(e: { kind: ProviderErrorKind; message: string; status?: number }): Response {
  const http = HTTP_ERRORS[e.kind];
  if (http) return errorResponse(e.status ?? http[0], http[1], e.message);
  const head = { "content-type": "text/event-stream" };
  switch (e.kind) {
    // The provider broke its wire format.
    case "protocol":
      return new Response(`data: {"scripted protocol error": ${JSON.stringify(e.message)}\n\n`, { headers: head });
    // Final arguments that are not a JSON object.
    case "invalid_tool_arguments":
      return sse([
        chunk("test_error", { tool_calls: [{ index: 0, id: "call_test_error", type: "function", function: { name: "scripted_error", arguments: "[]" } }] }),
        chunk("test_error", {}, "tool_calls"),
        "[DONE]",
      ]);
    // Headers, then nothing: the client reports a stall after provider_stream_idle_timeout_secs.
    case "stalled":
      return new Response(new ReadableStream({ start() {} }), { headers: head });
    // network, cancelled: the connection breaks before the answer.
    default:
      return new Response(
        new ReadableStream({
          pull(controller) {
            controller.error(new Error(e.message));
          },
        }),
        { headers: head },
      );
  }
}

function errorResponse(status: number, code: string, message: string): Response {
  return Response.json({ error: { code, message } }, { status });
}

function sse(events: (object | string)[]): Response {
  const text = events.map((e) => `data: ${typeof e === "string" ? e : JSON.stringify(e)}\n\n`).join("");
  return new Response(text, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}

function chunk(id: string, delta: Record<string, unknown>, finish: string | null = null): object {
  return { id, object: "chat.completion.chunk", model: TEST_PROVIDER_MODEL_LABEL, choices: [{ index: 0, delta, finish_reason: finish }] };
}

function words(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

const FINISH: Partial<Record<StopReason, string>> = { end_turn: "stop", tool_use: "tool_calls", max_tokens: "length", content_filter: "content_filter" };

/** One scripted answer as Chat Completions chunks: reasoning, text and tool calls word by word, then usage. */
function chatChunks(r: Exclude<ScriptedResponse, { error: unknown }>, turn: number): (object | string)[] {
  const id = `test_${turn + 1}`;
  const out: (object | string)[] = [chunk(id, { role: "assistant" })];
  for (const w of words(r.reasoning ?? "")) out.push(chunk(id, { reasoning_content: w }));
  for (const w of words(r.text ?? "")) out.push(chunk(id, { content: w }));
  for (const [j, call] of (r.tool_calls ?? []).entries()) {
    const callId = call.id ?? `call_test_${turn + 1}_${j + 1}`;
    out.push(chunk(id, { tool_calls: [{ index: j, id: callId, type: "function", function: { name: call.name, arguments: "" } }] }));
    out.push(chunk(id, { tool_calls: [{ index: j, function: { arguments: JSON.stringify(call.arguments ?? {}) } }] }));
  }
  const stop: StopReason = r.stop_reason ?? ((r.tool_calls ?? []).length > 0 ? "tool_use" : "end_turn");
  out.push(chunk(id, {}, FINISH[stop] ?? stop));
  const u: Partial<Usage> = r.usage ?? {};
  const prompt = u.input_tokens ?? 0;
  const completion = u.output_tokens ?? 0;
  out.push({
    id,
    object: "chat.completion.chunk",
    model: TEST_PROVIDER_MODEL_LABEL,
    choices: [],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: u.cache_read_tokens ?? 0 },
      completion_tokens_details: { reasoning_tokens: u.reasoning_tokens ?? 0 },
    },
  });
  out.push("[DONE]");
  return out;
}
