// Engine overhead per model round-trip: sessions of 50 tool calls against an in-process provider that
// answers instantly (pre-encoded Chat Completions streams through an injected fetch), minus the same
// provider calls made bare, without the engine (the reference, measured in the same run). Then RSS
// growth over 500 user turns in one session. Targets: median overhead <= 2 ms per round-trip; RSS
// growth <= 20 MB over 500 turns.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSessionFromConfig } from "../src/agent/create-session.ts";
import { callProvider } from "../src/providers/call.ts";
import type { FetchLike } from "../src/providers/http.ts";
import { resolveProvider } from "../src/providers/resolve.ts";
import { DEFAULT_RETRY } from "../src/providers/settings.ts";
import { systemClock } from "../src/util/clock.ts";
import { chatFrames } from "../test/fakes/wire-b-chat.ts";

const CALLS_PER_SESSION = 50;
const SESSIONS = Number(process.env.BENCH_RUNS ?? 20);
const MEMORY_TURNS = 500;

const encoder = new TextEncoder();
const toolBody = encoder.encode(chatFrames({ text: "Next step.", tool_calls: [{ id: "call_x", name: "progress_update", arguments: '{"text":"working"}' }] }).join("") + "data: [DONE]\n\n");
const textBody = encoder.encode(chatFrames({ text: "All done here." }).join("") + "data: [DONE]\n\n");
const sse = (bytes: Uint8Array<ArrayBuffer>) => new Response(bytes, { headers: { "content-type": "text/event-stream" } });

/** Answers with a tool call until `every` calls, then a final text; ids stay unique per call. */
function instantProvider(every: number): FetchLike {
  let n = 0;
  return async () => (++n % (every + 1) === 0 ? sse(textBody) : sse(toolBody));
}

const root = mkdtempSync(join(tmpdir(), "agent-bench-turn-"));
const project = join(root, "proj");
mkdirSync(join(project, ".agent"), { recursive: true });
mkdirSync(join(project, ".git"));
writeFileSync(
  join(project, ".agent", "config.yaml"),
  `providers:\n  fast: { kind: { type: custom_b_compatible }, url: "http://127.0.0.1:9/v1", auth: { type: no_auth } }\nmodels:\n  m: { provider: fast, class: full, context_window: 200000 }\ndefaults: { full: m }\ndaemon: { max_tool_turns: 1000 }\n`,
);
const env = { HOME: join(root, "home"), PATH: process.env.PATH ?? "" };

async function engineSession(): Promise<number> {
  const { session } = await createSessionFromConfig({ cwd: project, env, interactive: false, fetch: instantProvider(CALLS_PER_SESSION) });
  const started = performance.now();
  session.submit({ text: "do fifty things" });
  await session.idle();
  const elapsed = performance.now() - started;
  await session.close();
  return elapsed;
}

async function bareCalls(): Promise<number> {
  const provider = resolveProvider("fast", { kind: { type: "custom_b_compatible" }, url: "http://127.0.0.1:9/v1", auth: { type: "no_auth" } });
  const fetch = instantProvider(CALLS_PER_SESSION);
  const started = performance.now();
  for (let i = 0; i <= CALLS_PER_SESSION; i++) {
    const request = { model: "m", system: null, messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "x" }] }], tools: [], max_output_tokens: 1000, stop_sequences: [], reasoning: null, request_options: {} };
    for await (const _ of callProvider({ provider, retry: DEFAULT_RETRY, deps: { clock: systemClock, fetch }, buildRequest: () => request })) void _;
  }
  return performance.now() - started;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

for (let i = 0; i < 3; i++) {
  await engineSession();
  await bareCalls();
}
const overheads: number[] = [];
const engineTimes: number[] = [];
const bareTimes: number[] = [];
for (let i = 0; i < SESSIONS; i++) {
  const engine = await engineSession();
  const bare = await bareCalls();
  engineTimes.push(engine);
  bareTimes.push(bare);
  overheads.push((engine - bare) / (CALLS_PER_SESSION + 1));
}
const perRound = median(overheads);
console.log(`session of ${CALLS_PER_SESSION} tool calls (${CALLS_PER_SESSION + 1} model calls): engine ${median(engineTimes).toFixed(1)} ms, bare provider calls (reference) ${median(bareTimes).toFixed(1)} ms`);
console.log(`engine overhead per model round-trip (median of ${SESSIONS}): ${perRound.toFixed(3)} ms (target <= 2 ms)`);
console.log(perRound <= 2 ? "PASS turn overhead" : "FAIL turn overhead");

// Memory: one session, 500 user turns of one tool call and an answer each.
const { session } = await createSessionFromConfig({ cwd: project, env, interactive: false, fetch: instantProvider(1) });
const rss = () => {
  Bun.gc(true);
  return process.memoryUsage().rss / 1024 / 1024;
};
session.submit({ text: "warm up" });
await session.idle();
const before = rss();
for (let i = 0; i < MEMORY_TURNS; i++) {
  session.submit({ text: `turn ${i}` });
  await session.idle();
}
const after = rss();
await session.close();
console.log(`RSS over ${MEMORY_TURNS} turns: ${before.toFixed(1)} MB -> ${after.toFixed(1)} MB, growth ${(after - before).toFixed(1)} MB (target <= 20 MB; history holds ${session.conversation.entries.length} entries)`);
console.log(after - before <= 20 ? "PASS turn memory" : "FAIL turn memory");
