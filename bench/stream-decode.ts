// bench/stream-decode: decode the same ~5 MB recorded stream (many tool-call argument deltas) with our
// client and with the official SDK's stream helper, per dialect, in the same run. Both read the bytes
// through an injected fetch in 16 KiB chunks, so only the client-side decoding differs.
// Run: bun run bench/stream-decode.ts [--mb 5] [--runs 5]
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { streamOnce } from "../src/providers/client.ts";
import { systemClock } from "../src/util/clock.ts";
import type { ProviderRequest } from "../src/providers/request.ts";
import { resolveProvider } from "../src/providers/resolve.ts";
import type { TurnSpec } from "../test/fakes/turn-spec.ts";
import { messagesFrames } from "../test/fakes/wire-a-messages.ts";
import { chatFrames } from "../test/fakes/wire-b-chat.ts";
import { responsesFrames } from "../test/fakes/wire-b-responses.ts";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const TARGET_MB = arg("mb", 5);
const RUNS = arg("runs", 5);
const CHUNK = 16 * 1024;

function recordedTurn(targetBytes: number, build: (t: TurnSpec) => string[]): Uint8Array {
  // 100 parallel tool calls (the openai SDK accepts at most 128 per response); grow each call's
  // arguments until the encoded stream reaches the target size.
  const make = (edits: number): TurnSpec => ({
    text: "Applying the edits now. ".repeat(50),
    tool_calls: Array.from({ length: 100 }, (_, i) => ({
      id: `call_${i}`,
      name: "edit_file",
      arguments: JSON.stringify({ path: `src/ünïcode-${i}.ts`, edits: Array.from({ length: edits }, (_, j) => ({ line: j, text: `const x${j} = "value ${j} 🌍";` })) }),
    })),
    usage: { input: 1000, output: 5000 },
    chunk: 12,
  });
  const probe = new TextEncoder().encode(build(make(10)).join("")).length;
  const edits = Math.max(10, Math.round((10 * targetBytes) / probe));
  return new TextEncoder().encode(build(make(edits)).join(""));
}

function bodyOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let off = 0;
  return new ReadableStream({
    pull(c) {
      if (off >= bytes.length) return c.close();
      c.enqueue(bytes.subarray(off, off + CHUNK));
      off += CHUNK;
    },
  });
}
const fetchOf = (bytes: Uint8Array) => async () => new Response(bodyOf(bytes), { headers: { "content-type": "text/event-stream" } });

const request: ProviderRequest = { model: "m", system: null, messages: [{ role: "user", content: [{ type: "text", text: "x" }] }], tools: [], max_output_tokens: 100, stop_sequences: [], reasoning: null, request_options: {} };

type Dialect = "a_messages" | "b_chat_completions" | "b_responses";
const KIND = { a_messages: "custom_a_compatible", b_chat_completions: "custom_b_compatible", b_responses: "custom_b_responses" } as const;
const BASE = { a_messages: "http://bench.invalid", b_chat_completions: "http://bench.invalid/v1", b_responses: "http://bench.invalid/v1" } as const;

async function ours(dialect: Dialect, bytes: Uint8Array): Promise<number> {
  const provider = resolveProvider("bench", { kind: { type: KIND[dialect] }, url: BASE[dialect], auth: { type: "static_key", key: "k" } });
  let calls = 0;
  for await (const e of streamOnce(provider, request, { clock: systemClock, fetch: fetchOf(bytes) as never })) if (e.type === "tool_call_done") calls++;
  return calls;
}

async function sdk(dialect: Dialect, bytes: Uint8Array): Promise<number> {
  if (dialect === "a_messages") {
    const client = new Anthropic({ apiKey: "k", baseURL: BASE[dialect], maxRetries: 0, fetch: fetchOf(bytes) as never });
    const m = await client.messages.stream({ model: "m", max_tokens: 100, messages: [{ role: "user", content: "x" }] }).finalMessage();
    return m.content.filter((b) => b.type === "tool_use").length;
  }
  const client = new OpenAI({ apiKey: "k", baseURL: BASE[dialect], maxRetries: 0, fetch: fetchOf(bytes) as never });
  if (dialect === "b_chat_completions") {
    const c = await client.chat.completions.stream({ model: "m", messages: [{ role: "user", content: "x" }] }).finalChatCompletion();
    return c.choices[0]?.message.tool_calls?.length ?? 0;
  }
  const r = await client.responses.stream({ model: "m", input: "x" }).finalResponse();
  return r.output.filter((o) => o.type === "function_call").length;
}

async function timeIt(fn: () => Promise<number>): Promise<{ ms: number; calls: number }> {
  await fn(); // warm-up
  const times: number[] = [];
  let calls = 0;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    calls = await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)]!, calls };
}

const builders: Record<Dialect, (t: TurnSpec) => string[]> = { a_messages: messagesFrames, b_chat_completions: chatFrames, b_responses: responsesFrames };
const sdkName: Record<Dialect, string> = {
  a_messages: "@anthropic-ai/sdk messages.stream",
  b_chat_completions: "openai chat.completions.stream",
  b_responses: "openai responses.stream",
};

console.log(`stream-decode: median of ${RUNS} runs, ${CHUNK / 1024} KiB chunks; target ours/sdk >= 1.5x`);
let allOk = true;
for (const dialect of Object.keys(builders) as Dialect[]) {
  const bytes = recordedTurn(TARGET_MB * 1024 * 1024, builders[dialect]);
  const mb = bytes.length / (1024 * 1024);
  const a = await timeIt(() => ours(dialect, bytes));
  const b = await timeIt(() => sdk(dialect, bytes));
  if (a.calls !== b.calls) throw new Error(`${dialect}: ours decoded ${a.calls} tool calls, the SDK ${b.calls}`);
  const ratio = b.ms / a.ms;
  allOk &&= ratio >= 1.5;
  console.log(
    `${dialect.padEnd(19)} ${mb.toFixed(2)} MB, ${a.calls} tool calls | ours ${(mb / (a.ms / 1000)).toFixed(1)} MB/s (${a.ms.toFixed(1)} ms) | ${sdkName[dialect]} ${(mb / (b.ms / 1000)).toFixed(1)} MB/s (${b.ms.toFixed(1)} ms) | ratio ${ratio.toFixed(2)}x ${ratio >= 1.5 ? "ok" : "BELOW TARGET"}`,
  );
}
process.exitCode = allOk ? 0 : 1;
