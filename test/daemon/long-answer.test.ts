// A long answer costs the journal in proportion to the event-loop turns it took, not to its deltas, and
// never holds the event loop for the whole answer (issue 26 item 3; bench/long-answer.ts times it). The
// engine hands each streamed delta over in its own microtask, so a hub committing at the end of each
// microtask wrote a transaction (an fsync) per delta, and a provider always ahead of the engine kept the
// whole answer in one chain of microtasks. Counted here, never timed.
import { afterEach, expect, test } from "bun:test";
import { configuredEngine } from "../../src/cli/daemon-run.ts";
import { startDaemon, type RunningDaemon } from "../../src/daemon/serve.ts";
import { systemClock } from "../../src/util/clock.ts";
import { EVENTS_PER_LOOP_TURN, decodeResponseStream } from "../../src/providers/client.ts";
import { chatFrames } from "../fakes/wire-b-chat.ts";
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

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i % 97}`).join(" ");

test("deltas published one microtask apart within one event-loop turn are one record in one transaction", async () => {
  h = await startHarness();
  const hub = h.running.daemon.hub;
  let appends = 0;
  const append = hub.journal.append.bind(hub.journal);
  hub.journal.append = (bodies, at) => (appends++, append(bodies, at));
  const before = hub.lastSeq;
  // As the engine does: each delta after an await (an async generator's yield).
  for (let i = 0; i < 5_000; i++) {
    hub.publish({ type: "part_delta", message_id: "msg_1", part_id: "prt_1", delta: `${i} ` });
    await Promise.resolve();
  }
  await new Promise((resolve) => setImmediate(resolve));
  expect(appends).toBe(1);
  expect(hub.lastSeq - before).toBe(1);
  const record = hub.journal.read(before, 10)[0]!;
  expect(JSON.parse(record.body).delta).toBe(Array.from({ length: 5_000 }, (_, i) => `${i} `).join(""));
});

test("a provider stream already buffered is handed on a bounded number of events per event-loop turn", async () => {
  const frames = chatFrames({ text: words(5_000), chunk: 3 });
  const body = new Response(frames.join("")).body!;
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
  for await (const e of decodeResponseStream(body, { dialect: "b_chat_completions", info: { reasoningDeltaField: "reasoning_content" } as never }, systemClock, null)) {
    if (e.type === "text_delta") deltas++;
    most = Math.max(most, ++eventsThisTurn);
  }
  ticking = false;
  expect(deltas).toBeGreaterThan(5_000);
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
  daemon = await startDaemon({ sessionDir: dir, project: project.root, credential: TOKEN, limits: { heartbeatMs: 0 }, engineFactory: configuredEngine(project.env, false).engineFactory });
  const headers = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" };
  const snap = await (await fetch(`${daemon.url}/sync`, { headers })).json();
  const running = daemon;
  const revision = () => running.daemon.store.meta().sourceRevision;
  const before = { seq: daemon.daemon.hub.lastSeq, revision: revision() };
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
  // Before: a record and a transaction per delta (about 20,000 of each).
  expect(parts.length).toBeLessThan(deltas / 20);
  expect(transactions).toBeLessThan(deltas / 20);
}, 60_000);
