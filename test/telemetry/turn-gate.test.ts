// Export yields to turns (src/telemetry/turn-gate.ts): the gate on its own, and the real tracer against
// a local OTLP receiver, which gets nothing while a turn runs and the batch once it is over.
import { afterEach, expect, test } from "bun:test";
import { startTelemetry } from "../../src/telemetry/start.ts";
import { TURN_SPAN_NAME } from "../../src/telemetry/tracer.ts";
import { TurnGate } from "../../src/telemetry/turn-gate.ts";
import { until } from "../fakes/fake-clock.ts";
import { startOtlpReceiver, type OtlpReceiver } from "./otlp-receiver.ts";

let receiver: OtlpReceiver | undefined;
afterEach(() => receiver?.stop());

test("with no turn running a batch goes at once", () => {
  const gate = new TurnGate(1000, 10);
  let ran = 0;
  gate.whenIdle(() => ran++);
  expect(ran).toBe(1);
});

test("a batch waits for the running turn, then a grace; a turn starting in the grace keeps it waiting", async () => {
  const gate = new TurnGate(10_000, 30);
  let ran = 0;
  gate.turnStarted();
  gate.whenIdle(() => ran++);
  await Bun.sleep(60);
  expect(ran).toBe(0);
  gate.turnEnded();
  // Not at once: the finished turn's last steps go first.
  expect(ran).toBe(0);
  gate.turnStarted();
  await Bun.sleep(60);
  expect(ran).toBe(0);
  gate.turnEnded();
  await until(() => ran === 1, "the batch after the grace");
});

test("a batch that comes during the grace goes after the one already waiting", async () => {
  const gate = new TurnGate(10_000, 30);
  const ran: string[] = [];
  gate.turnStarted();
  gate.whenIdle(() => ran.push("first"));
  gate.turnEnded();
  gate.whenIdle(() => ran.push("second"));
  expect(ran).toEqual([]);
  await until(() => ran.length === 2, "both batches after the grace");
  expect(ran).toEqual(["first", "second"]);
});

test("two turns at once: the batch waits for both", async () => {
  const gate = new TurnGate(10_000, 5);
  let ran = 0;
  gate.turnStarted();
  gate.turnStarted();
  gate.whenIdle(() => ran++);
  gate.turnEnded();
  await Bun.sleep(30);
  expect(ran).toBe(0);
  gate.turnEnded();
  await until(() => ran === 1, "the batch after the last turn");
});

test("a long turn: the batch goes after the bound", async () => {
  const gate = new TurnGate(50, 5);
  let ran = 0;
  gate.turnStarted();
  gate.whenIdle(() => ran++);
  await until(() => ran === 1, "the batch after the bound");
  gate.turnEnded();
  await Bun.sleep(20);
  expect(ran).toBe(1);
});

test("opening for good sends what waits and lets everything later through", () => {
  const gate = new TurnGate(10_000, 5);
  const ran: string[] = [];
  gate.turnStarted();
  gate.whenIdle(() => ran.push("first"));
  gate.openForGood();
  gate.whenIdle(() => ran.push("second"));
  expect(ran).toEqual(["first", "second"]);
});

test("the tracer sends nothing while a turn runs, and the batch once it is over", async () => {
  receiver = startOtlpReceiver();
  const tracer = await startTelemetry({ block: { endpoint: receiver.url, protocol: "http/json" }, env: {}, role: "daemon" });
  const turn = tracer.start(TURN_SPAN_NAME, { "agent.turn.id": "trn_1" });
  tracer.start("chat", {}, "client", turn).end();
  // The export fires during the turn (as the processor's timer would): held back.
  const flushed = tracer.flush();
  await Bun.sleep(300);
  expect(receiver.requests.length).toBe(0);
  turn.end();
  await flushed;
  expect(receiver.spans().map((s) => s.name)).toEqual(["chat"]);
  // Stopping the tracer during a turn sends at once what it holds.
  const next = tracer.start(TURN_SPAN_NAME, { "agent.turn.id": "trn_2" });
  tracer.start("execute_tool read", {}, "internal", next).end();
  await tracer.shutdown();
  expect(receiver.spans().map((s) => s.name).sort()).toEqual(["agent.turn", "chat", "execute_tool read"]);
});
