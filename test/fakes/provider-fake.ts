// A real HTTP model-provider fake on 127.0.0.1:0 for one base dialect. It answers each request with
// the next scripted step (a stream of SSE frames, or an HTTP error), can stall or cut a stream after
// N frames, and captures every request, checking the dialect's invariants (every tool call answered,
// non-empty ids, thinking/reasoning returned verbatim). A violated invariant is answered with a 400
// and recorded in `violations`, so a test cannot pass over it. Every fake also applies a vendor's
// request rules (strict/vendors.ts) and answers a broken one with that vendor's error body: by default
// the rules every vendor of the dialect shares (DIALECT_DEFAULT), with `vendor` one vendor's whole
// table and its stream details (reasoning field, Gemini's signatures).
import type { Server } from "bun";
import { messagesFrames } from "./wire-a-messages.ts";
import { chatFrames } from "./wire-b-chat.ts";
import { responsesFrames } from "./wire-b-responses.ts";
import type { TurnSpec } from "./turn-spec.ts";
import { checkRequestInvariants, type Dialect, type ReplayMemory } from "./request-invariants.ts";
import { firstBrokenRule, strictProfile } from "./strict/vendors.ts";
import type { VendorProfile } from "./strict/types.ts";

export type FakeStep =
  | { kind: "turn"; turn: TurnSpec; stallAfter?: number; cutAfter?: number }
  | { kind: "frames"; frames: string[]; stallAfter?: number; cutAfter?: number }
  | { kind: "error"; status: number; body: unknown; headers?: Record<string, string> };

export interface CapturedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: any;
}

export interface ProviderFake {
  url: string;
  /** Base URL to configure for the dialect (origin for Messages, /v1 for the others). */
  base: string;
  requests: CapturedRequest[];
  violations: string[];
  /** Streams that reached their stall gate so far. */
  stalls(): number;
  /** Releases every stalled stream (it then continues with its remaining frames). */
  release(): void;
  stop(): Promise<void>;
}

const PATHS: Record<Dialect, string> = { a_messages: "/v1/messages", b_chat_completions: "/v1/chat/completions", b_responses: "/v1/responses" };

export function framesFor(dialect: Dialect, turn: TurnSpec, profile?: VendorProfile): string[] {
  if (dialect === "a_messages") return messagesFrames(turn);
  if (dialect === "b_chat_completions") return chatFrames(vendorTurn(turn, profile), { reasoningField: profile?.reasoningField });
  return responsesFrames(turn);
}

/** Gemini always signs the first function call of a step: a scripted turn without a signature gets one, as the real service would send it. */
function vendorTurn(turn: TurnSpec, profile?: VendorProfile): TurnSpec {
  const [first, ...rest] = turn.tool_calls ?? [];
  if (profile?.vendor !== "google" || !first || first.extra_content) return turn;
  return { ...turn, tool_calls: [{ ...first, extra_content: { google: { thought_signature: `sig_fake_${first.id}` } } }, ...rest] };
}

export interface ProviderFakeOptions {
  tls?: { cert: string; key: string };
  /** Pages served at the dialect's models endpoint (Messages-style `has_more`/`after_id` paging). */
  models?: Record<string, unknown>[][];
  /** A vendor serving the API under a path prefix (OpenRouter: /api/v1/chat/completions). */
  prefix?: string;
  /**
   * A catalog provider name or alias (`anthropic`, `deepseek`, `kimi`, ...) or `openai-chat`: the fake
   * applies that vendor's whole rule table. Its dialect must be the one passed (startStrictFake derives
   * it). Default: DIALECT_DEFAULT.
   */
  vendor?: string;
}

/**
 * The rules a fake applies when the test names no vendor: what every vendor of the dialect requires
 * (Messages: the request shape all Messages endpoints check; Chat Completions: tool-call pairing and
 * text-only tool messages; Responses: OpenAI's, the only vendor of that dialect).
 */
export const DIALECT_DEFAULT: Readonly<Record<Dialect, string>> = { a_messages: "messages-compatible", b_chat_completions: "chat-compatible", b_responses: "openai" };

export function startProviderFake(dialect: Dialect, script: FakeStep[], options: ProviderFakeOptions = {}): ProviderFake {
  const profile = strictProfile(options.vendor ?? DIALECT_DEFAULT[dialect]);
  if (profile.dialect !== dialect) throw new Error(`vendor '${options.vendor}' speaks ${profile.dialect}, not ${dialect}`);
  const prefix = options.prefix ?? "";
  const requests: CapturedRequest[] = [];
  const violations: string[] = [];
  const memory: ReplayMemory = { thinking: [], reasoningItems: [] };
  const emitted = { callIds: new Set<string>(), thinkingCallIds: new Set<string>() };
  const releasers = new Set<() => void>();
  let next = 0;
  let stallCount = 0;
  const encoder = new TextEncoder();

  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    ...(options.tls ? { tls: options.tls } : {}),
    error: (error) => new Response(JSON.stringify({ error: { type: "fake_error", message: String(error) } }), { status: 500 }),
    async fetch(req, srv) {
      srv.timeout(req, 0);
      const path = new URL(req.url).pathname;
      const text = await req.text();
      let body: any = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        violations.push(`request body is not JSON`);
      }
      const headers: Record<string, string> = {};
      req.headers.forEach((v, k) => (headers[k] = v));
      requests.push({ method: req.method, path, headers, body });
      if (req.method === "GET" && path === "/v1/models" && options.models) {
        const pages = options.models;
        const after = new URL(req.url).searchParams.get("after_id");
        const index = after ? pages.findIndex((p) => p.at(-1)?.id === after) + 1 : 0;
        const page = pages[index] ?? [];
        return Response.json({ data: page, has_more: index < pages.length - 1, last_id: page.at(-1)?.id ?? null });
      }
      if (path !== `${prefix}${PATHS[dialect]}` || req.method !== "POST") {
        violations.push(`unexpected ${req.method} ${path}`);
        return Response.json({ error: { type: "not_found_error", message: `no route ${path}` } }, { status: 404 });
      }
      const broken = firstBrokenRule(profile, body, headers, emitted);
      if (broken) {
        violations.push(`${broken.rule.id}: ${broken.message}`);
        return Response.json(broken.refusal.body, { status: broken.refusal.status });
      }
      const problems = checkRequestInvariants(dialect, body, memory);
      if (problems.length > 0) {
        violations.push(...problems);
        const refusal = profile.refuse({ message: problems.join("; ") });
        return Response.json(refusal.body, { status: refusal.status });
      }
      const step = script[next++];
      if (!step) {
        violations.push(`request #${requests.length} beyond the script`);
        return Response.json({ error: { type: "invalid_request_error", message: "script exhausted" } }, { status: 400 });
      }
      if (step.kind === "error") return new Response(JSON.stringify(step.body), { status: step.status, headers: { "content-type": "application/json", ...step.headers } });
      const frames = step.kind === "turn" ? framesFor(dialect, step.turn, profile) : step.frames;
      if (step.kind === "turn") {
        remember(dialect, step.turn, memory);
        for (const call of step.turn.tool_calls ?? []) {
          emitted.callIds.add(call.id);
          if (step.turn.reasoning) emitted.thinkingCallIds.add(call.id);
        }
      }
      let sent = 0;
      let stalled = false;
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (step.cutAfter !== undefined && sent >= step.cutAfter) return controller.close();
          if (step.stallAfter !== undefined && sent >= step.stallAfter && !stalled) {
            stalled = true;
            stallCount++;
            await new Promise<void>((resolve) => releasers.add(resolve));
          }
          const f = frames[sent++];
          if (f === undefined) return controller.close();
          controller.enqueue(encoder.encode(f));
        },
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": `req_fake_${requests.length}` } });
    },
  });
  const scheme = options.tls ? "https" : "http";
  const url = `${scheme}://127.0.0.1:${server.port}`;
  return {
    url,
    base: dialect === "a_messages" ? `${url}${prefix}` : `${url}${prefix}/v1`,
    requests,
    violations,
    stalls: () => stallCount,
    release() {
      for (const r of releasers) r();
      releasers.clear();
    },
    async stop() {
      for (const r of releasers) r();
      await server.stop(true);
    },
  };
}

function remember(dialect: Dialect, turn: TurnSpec, memory: ReplayMemory): void {
  if (!turn.reasoning) return;
  if (dialect === "a_messages") memory.thinking.push({ type: "thinking", thinking: turn.reasoning.text, signature: turn.reasoning.signature ?? "sig_fake" });
  if (dialect === "b_responses")
    memory.reasoningItems.push({
      type: "reasoning",
      id: turn.reasoning.id ?? "rs_fake_1",
      summary: [{ type: "summary_text", text: turn.reasoning.text }],
      encrypted_content: turn.reasoning.encrypted ?? "enc_fake",
    });
}
