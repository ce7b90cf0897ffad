// The turn's thread's cost per span, in seconds: the engine's own span code (src/telemetry/engine-spans.ts:
// traceTurn, traceProviderCall over a provider event stream, traceToolCall) drives the real tracer
// (official sampler, id generator and BatchSpanProcessor over span records) for turns shaped like
// bench/telemetry.ts's (50 tool calls, 51 provider requests: 102 spans), and after each turn its spans
// are handed to the export worker (the processor's flush: pack and post). The same loop with the no-op
// tracer is the reference; recording is the difference of the two medians. The worker exports to a
// receiver in another process, and each turn waits for its export's answer outside the timed parts,
// so the worker's work never piles up on the core the loop runs on. Times are the thread's CPU clock
// (clock_gettime; wall time where it cannot be read): other processes on a shared machine then stretch
// no figure, only the run.
// Tool call ids are unique per call, as a provider's are (each is a new string to scrub).
// BENCH_TURNS (400) changes the run; `bun --cpu-prof bench/telemetry-spans.ts` profiles it.
import { dlopen, FFIType } from "bun:ffi";
import { loadavg } from "node:os";
import type { AgentRuntime } from "../src/agent/runtime.ts";
import type { StreamEvent, Usage } from "../src/providers/events.ts";
import { traceProviderCall, traceToolCall, traceTurn } from "../src/telemetry/engine-spans.ts";
import { startTelemetry } from "../src/telemetry/start.ts";
import { NOOP_SPAN, NOOP_TRACER, type Tracer } from "../src/telemetry/tracer.ts";

const CALLS = 50;
const SPANS = 2 * CALLS + 2;
const TURNS = Number(process.env.BENCH_TURNS ?? 400);
const WARMUP = 40;

/** Milliseconds of this thread's CPU clock (CLOCK_THREAD_CPUTIME_ID), else of the wall clock. */
const now = (() => {
  try {
    const { clock_gettime } = dlopen("libc.so.6", { clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 } }).symbols;
    const timespec = new BigInt64Array(2);
    return () => (clock_gettime(3, timespec), Number(timespec[0]) * 1e3 + Number(timespec[1]) / 1e6);
  } catch {
    return () => performance.now();
  }
})();

const receiver = Bun.spawn(["bun", "-e", `const s = Bun.serve({ hostname: "127.0.0.1", port: 0, async fetch(req) { await req.arrayBuffer(); return new Response("{}", { headers: { "content-type": "application/json" } }); } }); console.log(s.port);`], { stdout: "pipe", stderr: "inherit" });
const port = Number(new TextDecoder().decode((await receiver.stdout.getReader().read()).value).trim());
const tracer = await startTelemetry({ block: { endpoint: `http://127.0.0.1:${port}`, protocol: "http/json" }, env: {}, role: "daemon" });

/** Enabled, so engine-spans.ts wraps streams and calls as with export, but its spans record nothing. */
const HOLLOW_TRACER: Tracer = { ...NOOP_TRACER, enabled: true, start: () => NOOP_SPAN };

const usage: Usage = { input_tokens: 100, output_tokens: 10, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 };
/** A provider response's events as the engine sees them (a Chat Completions tool-call answer). */
async function* providerStream(callId: string): AsyncGenerator<StreamEvent> {
  yield { type: "response_start", id: "resp_1", model: "gpt-bench" };
  yield { type: "text_delta", index: 0, text: "Next step." };
  yield { type: "text_done", index: 0, text: "Next step." };
  yield { type: "tool_call_start", index: 1, id: callId, name: "progress_update" };
  yield { type: "tool_call_done", index: 1, id: callId, name: "progress_update", arguments: { text: "working" } };
  yield { type: "usage", usage };
  yield { type: "done", stop_reason: "tool_use", raw_stop_reason: "tool_calls", usage };
}

let seq = 0;
async function turn(traced: Tracer): Promise<void> {
  const callDeps = {};
  const toolContext = {};
  const rt = { tracer: traced, sessionId: "ses_01JBENCHSPANS", model: { key: "m", provider_name: "gpt-bench" }, facet: "build", callDeps, toolContext } as unknown as AgentRuntime;
  await traceTurn(rt, `turn_${++seq}`, () => usage, async () => {
    for (let i = 0; i <= CALLS; i++) {
      const callId = `call_${seq}_${i}`;
      for await (const _ of traceProviderCall(traced, { provider: "fast", protocol: "b_chat_completions", model: () => "m", scope: callDeps }, providerStream(callId)));
      if (i < CALLS) await traceToolCall(traced, toolContext, { call_id: callId, name: "progress_update" }, () => "completed", async () => {});
    }
    return { stop: "end_turn" };
  });
}

const recorded: number[] = [];
const reference: number[] = [];
const hollow: number[] = [];
const handoff: number[] = [];
for (let i = 0; i < WARMUP + TURNS; i++) {
  // Rotating order, so drift hits all alike.
  const order = i % 3 === 0 ? [tracer, NOOP_TRACER, HOLLOW_TRACER] : i % 3 === 1 ? [NOOP_TRACER, HOLLOW_TRACER, tracer] : [HOLLOW_TRACER, tracer, NOOP_TRACER];
  for (const t of order) {
    const t0 = now();
    await turn(t);
    const t1 = now();
    if (t === tracer) {
      const exported = tracer.flush();
      const t2 = now();
      await exported;
      if (i >= WARMUP) {
        recorded.push(t1 - t0);
        handoff.push(t2 - t1);
      }
    } else if (i >= WARMUP) (t === NOOP_TRACER ? reference : hollow).push(t1 - t0);
  }
}
await tracer.shutdown();
receiver.kill();

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2;
};
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(0.9 * (xs.length - 1))]!;
const us = (ms: number) => ((ms * 1000) / SPANS).toFixed(2);
const record = median(recorded) - median(reference);
const hand = median(handoff);
console.log(`${TURNS} turns of ${SPANS} spans (${CALLS} tool calls), load average ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
console.log(`  reference, the same turn with the no-op tracer: ${median(reference).toFixed(3)} ms a turn`);
console.log(`  with the tracer: ${median(recorded).toFixed(3)} ms a turn (p90 ${p90(recorded).toFixed(3)})`);
console.log(`  recording (start, attributes, end, processor): ${us(record)} µs/span`);
console.log(`    of which engine-spans.ts's wrappers (spans that record nothing): ${us(median(hollow) - median(reference))} µs/span`);
console.log(`  hand-off to the worker (flush, pack, post): ${us(hand)} µs/span (p90 ${us(p90(handoff))})`);
// The machine's speed drifts between runs (shared cores): the ratio to the reference drifts less.
console.log(`  turn's thread total: ${us(record + hand)} µs/span, ${(record + hand).toFixed(3)} ms a turn (${((record + hand) / median(reference)).toFixed(2)} times the reference turn)`);
