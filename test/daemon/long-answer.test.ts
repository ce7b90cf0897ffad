// A long answer costs the journal in proportion to the event-loop turns it took, not to its deltas, and
// never holds the event loop for the whole answer (issue 26 item 3; bench/long-answer.ts times it). The
// engine hands each streamed delta over in its own microtask, so a hub committing at the end of each
// microtask wrote a transaction (an fsync) per delta, and a provider always ahead of the engine kept the
// whole answer in one chain of microtasks. The engine's own work is per provider read, not per token:
// the decoder merges a read's consecutive deltas of one part into one event. Counted here, never timed.
import { afterEach, expect, test } from "bun:test";
import { configuredEngine } from "../../src/cli/daemon-run.ts";
import { startDaemon, type RunningDaemon } from "../../src/daemon/serve.ts";
import { systemClock } from "../../src/util/clock.ts";
import { EVENTS_PER_LOOP_TURN, decodeResponseStream } from "../../src/providers/client.ts";
import type { StreamEvent } from "../../src/providers/events.ts";
import { DELTA_COMMIT_INTERVAL_MS } from "../../src/daemon/hub.ts";
import type { RecordBody } from "../../src/daemon/store/journal.ts";
import { chatFrames } from "../fakes/wire-b-chat.ts";
import { frame } from "../fakes/turn-spec.ts";
import { startProviderFake, type ProviderFake } from "../fakes/provider-fake.ts";
import { makeProject, waitFor } from "../agent/harness.ts";
import { newOperation, startHarness, tempSessionDir, TOKEN, type Harness } from "./harness.ts";

let h: Harness | null = null;
let daemon: RunningDaemon | null = null;
let fake: ProviderFake | null = null;
afterEach(async () => {
  await h?.stop();
  await daemon?.stop();
  await fake?.stop();
  h = daemon = fake = null;
});

const words = (n: number) => Array.from({ length: n }, (_, i) => (i % 10 === 9 ? "héllo🙂" : `w${i % 97}`)).join(" ");
const chat = { dialect: "b_chat_completions" as const, info: { reasoningDeltaField: "reasoning_content" } as never };
const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  frame(null, { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] });
const tail = frame(null, { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m", choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }) + frame(null, "[DONE]");

/** A body delivered in the given pieces of its UTF-8 bytes (cut anywhere, even inside a character). */
function bodyOf(text: string, cuts: number[]): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  const at = [0, ...cuts.map((f) => Math.floor(bytes.length * f)), bytes.length];
  return new ReadableStream({
    start(c) {
      for (let i = 1; i < at.length; i++) c.enqueue(bytes.subarray(at[i - 1], at[i]));
      c.close();
    },
  });
}

async function decodeAll(body: ReadableStream<Uint8Array>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const e of decodeResponseStream(body, chat, systemClock, null)) events.push(e);
  return events;
}

const texts = (events: StreamEvent[], type: "text_delta" | "reasoning_delta") => events.flatMap((e) => (e.type === type ? [e.text] : [])).join("");

/** Counts the hub journal's appends (its transactions) from now on. */
function countAppends(hub: Harness["running"]["daemon"]["hub"]): { (): number } {
  let n = 0;
  const append = hub.journal.append.bind(hub.journal);
  hub.journal.append = (bodies, at) => (n++, append(bodies, at));
  return () => n;
}

test("deltas published one microtask apart within one event-loop turn are one record in one transaction", async () => {
  h = await startHarness();
  const hub = h.running.daemon.hub;
  const appends = countAppends(hub);
  const before = hub.lastSeq;
  // As the engine does: each delta after an await (an async generator's yield).
  for (let i = 0; i < 5_000; i++) {
    hub.publish({ type: "part_delta", message_id: "msg_1", part_id: "prt_1", delta: `${i} ` });
    await Promise.resolve();
  }
  expect(appends()).toBe(0);
  while (hub.queued > 0) await Bun.sleep(1);
  expect(appends()).toBe(1);
  expect(hub.lastSeq - before).toBe(1);
  const record = hub.journal.read(before, 10)[0]!;
  expect(JSON.parse(record.body).delta).toBe(Array.from({ length: 5_000 }, (_, i) => `${i} `).join(""));
});

test("deltas published in many event-loop turns are committed at most once per interval; any other record in its own turn", async () => {
  h = await startHarness();
  const hub = h.running.daemon.hub;
  const appends = countAppends(hub);
  const before = hub.lastSeq;
  const started = performance.now();
  for (let i = 0; i < 300; i++) {
    hub.publish({ type: "part_delta", message_id: "msg_1", part_id: "prt_1", delta: `${i} ` });
    await new Promise((resolve) => setImmediate(resolve));
  }
  const elapsed = performance.now() - started;
  // One commit per loop turn would be 300.
  expect(appends()).toBeLessThanOrEqual(Math.ceil(elapsed / DELTA_COMMIT_INTERVAL_MS) + 1);
  // A record that is not a delta does not wait for the interval, and takes the queued delta with it.
  hub.publish({ type: "part_delta", message_id: "msg_1", part_id: "prt_1", delta: "end" });
  hub.publish({ type: "notice", level: "info", message: "done" } as RecordBody);
  await new Promise((resolve) => setImmediate(resolve));
  expect(hub.queued).toBe(0);
  const records = hub.journal.read(before, 1_000);
  expect(records.filter((r) => r.type === "part_delta").map((r) => JSON.parse(r.body).delta).join("")).toBe(Array.from({ length: 300 }, (_, i) => `${i} `).join("") + "end");
  expect(records.at(-1)!.type).toBe("notice");
});

test("consecutive deltas of one part in one provider read are handed on as one event, the text byte for byte", async () => {
  const text = words(5_000);
  const reasoning = words(3_000);
  const args = [JSON.stringify({ path: "a.txt", content: words(800) }), JSON.stringify({ path: "b.txt", content: words(600) })];
  const frames = [
    ...chatFrames({ reasoning: { text: reasoning }, text, chunk: 3 }).slice(0, -3),
    ...args.flatMap((a, i) => [
      chunk({ tool_calls: [{ index: i, id: `call_${i}`, type: "function", function: { name: "write", arguments: "" } }] }),
      ...Array.from({ length: Math.ceil(a.length / 4) }, (_, k) => chunk({ tool_calls: [{ index: i, function: { arguments: a.slice(k * 4, k * 4 + 4) } }] })),
    ]),
    chunk({}, "tool_calls"),
  ].join("") + tail;
  // Three reads, cut inside frames (and inside a character where one falls there).
  const events = await decodeAll(bodyOf(frames, [0.31, 0.67]));
  expect(texts(events, "text_delta")).toBe(text);
  expect(texts(events, "reasoning_delta")).toBe(reasoning);
  for (const [i, a] of args.entries()) {
    expect(events.flatMap((e) => (e.type === "tool_call_delta" && e.index === (events.find((s) => s.type === "tool_call_start" && s.id === `call_${i}`) as { index: number }).index ? [e.arguments_delta] : [])).join("")).toBe(a);
    expect(events.find((e) => e.type === "tool_call_done" && e.id === `call_${i}`)).toMatchObject({ arguments: JSON.parse(a) });
  }
  expect(events.find((e) => e.type === "text_done")).toMatchObject({ text });
  // Per read at most one delta event per part (before: one per chunk, about 9,000 in all).
  const deltas = events.filter((e) => e.type.endsWith("_delta"));
  expect(deltas.length).toBeLessThanOrEqual(3 * 4);
  // The order of the parts is kept: all reasoning, then the text, then each call's arguments.
  const order = deltas.map((e) => (e.type === "tool_call_delta" ? `${e.type}:${e.id}` : e.type)).filter((t, i, all) => t !== all[i - 1]);
  expect(order).toEqual(["reasoning_delta", "text_delta", "tool_call_delta:call_0", "tool_call_delta:call_1"]);
});

test("a provider stream already buffered is handed on a bounded number of events per event-loop turn", async () => {
  // Every chunk carries reasoning and text: consecutive deltas of two parts, none of which can merge.
  const n = 5_000;
  const body = bodyOf(chunk({ role: "assistant", content: "" }) + Array.from({ length: n }, (_, i) => chunk({ reasoning_content: `r${i} `, content: `t${i} ` })).join("") + chunk({}, "stop") + tail, []);
  let turns = 0;
  let eventsThisTurn = 0;
  let most = 0;
  let ticking = true;
  const tick = () => {
    turns++;
    eventsThisTurn = 0;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  let deltas = 0;
  const events: StreamEvent[] = [];
  for await (const e of decodeResponseStream(body, chat, systemClock, null)) {
    if (e.type === "text_delta" || e.type === "reasoning_delta") deltas++;
    events.push(e);
    most = Math.max(most, ++eventsThisTurn);
  }
  ticking = false;
  expect(deltas).toBe(2 * n);
  expect(texts(events, "text_delta")).toBe(Array.from({ length: n }, (_, i) => `t${i} `).join(""));
  expect(most).toBeLessThanOrEqual(EVENTS_PER_LOOP_TURN);
  expect(turns).toBeGreaterThanOrEqual(Math.floor(deltas / EVENTS_PER_LOOP_TURN));
});

test("a real engine's 20,000-delta answer through a daemon: the journal holds the whole text in far fewer records and transactions than deltas", async () => {
  const text = words(20_000);
  const frames = chatFrames({ text, chunk: 4 });
  const deltas = frames.length - 4;
  // The whole stream at once, as a provider faster than the engine delivers it.
  fake = startProviderFake("b_chat_completions", [{ kind: "frames", frames: [frames.join("")] }]);
  const project = makeProject(
    `providers:\n  fake: { kind: { type: custom_b_compatible }, url: "${fake.base}", auth: { type: no_auth } }\nmodels:\n  m: { provider: fake, class: full, context_window: 1000000 }\ndefaults: { full: m }\ndaemon: { retry: { max_retries: 0 } }\n`,
  );
  const dir = tempSessionDir();
  daemon = await startDaemon({ sessionDir: dir, project: project.root, credential: TOKEN, limits: { heartbeatMs: 0 }, engineFactory: configuredEngine(project.env, false, { untrusted: "keep" }).engineFactory }); // the project layer is this test's own provider
  const headers = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" };
  const snap = await (await fetch(`${daemon.url}/sync`, { headers })).json();
  const running = daemon;
  const revision = () => running.daemon.store.meta().sourceRevision;
  const before = { seq: daemon.daemon.hub.lastSeq, revision: revision() };
  // What the engine hands the hub: one part_delta per provider read, not per chunk.
  let published = 0;
  const publish = daemon.daemon.hub.publish.bind(daemon.daemon.hub);
  daemon.daemon.hub.publish = (body) => (body.type === "part_delta" && published++, publish(body));
  const res = await fetch(`${daemon.url}/prompt`, {
    method: "POST",
    headers,
    body: JSON.stringify({ text: "a long answer please", operation_context: { daemon_epoch: snap.daemon_epoch, window: snap.operation_window.window, operation: newOperation() } }),
  });
  expect(res.status).toBe(202);
  await waitFor(() => running.daemon.host.turnId === null && running.daemon.hub.journal.lastOfType("turn_completed") !== null, "the turn to end");
  const records = daemon.daemon.hub.journal.read(before.seq, 100_000);
  const parts = records.filter((r) => r.type === "part_delta");
  const transactions = revision() - before.revision;
  expect(deltas).toBeGreaterThan(15_000);
  expect(parts.map((r) => JSON.parse(r.body).delta).join("")).toBe(text);
  expect(JSON.parse(records.find((r) => r.type === "part_completed")!.body).part.text).toBe(text);
  // Before: 20,000 events through the engine, and a record and a transaction per delta.
  expect(published).toBeGreaterThan(0);
  expect(published).toBeLessThan(deltas / 20);
  expect(parts.length).toBeLessThan(deltas / 20);
  expect(transactions).toBeLessThan(deltas / 20);
}, 60_000);
