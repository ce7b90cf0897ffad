// Correlated commands over real HTTP: stored results replayed without running again, payload conflicts,
// window expiry on a fake clock, stale epochs, ledger capacity, busy sessions, the result lifecycle,
// interrogative answers (withdrawn / not pending) and the newest-input dequeue.
import { afterEach, describe, expect, test } from "bun:test";
import { type Harness, operationContext, startHarness, testClock } from "./harness.ts";
import { until } from "../fakes/fake-clock.ts";

let h: Harness;
afterEach(async () => {
  await h?.stop();
});

const context = () => operationContext(h);

describe("operation correlation", () => {
  test("a retry after a dropped response returns the stored result and the prompt runs once", async () => {
    h = await startHarness();
    const ctx = await context();
    const first = await h.post("/prompt", { text: "deploy", operation_context: ctx });
    expect(first.status).toBe(202);
    const firstBody = await first.json();
    const promptId: string = firstBody.prompt_id;
    expect(promptId).toStartWith("inp_");
    expect(firstBody).toMatchObject({ generation: 1, queued: false, operation_context: ctx });
    expect(firstBody.operation).toMatchObject({ version: 1, daemon_epoch: ctx.daemon_epoch, operation: ctx.operation, status: expect.stringMatching(/admitted|in_progress/) });
    await h.engine().idle();
    // The client never saw the first response: it retries with the same key and payload (keys in another order).
    const retry = await h.post("/prompt", { operation_context: ctx, text: "deploy" });
    expect(retry.status).toBe(202);
    const again = await retry.json();
    expect(again.prompt_id).toBe(promptId);
    expect(again.generation).toBe(1);
    expect(again.operation.status).toBe("completed");
    expect(again.operation.outcome).toMatchObject({ stop_reason: "end_turn", prompt_id: firstBody.prompt_id });
    expect(typeof again.operation.committed_cursor).toBe("string");
    expect(h.engine().ran).toEqual(["deploy"]);
  });

  test("the same key with a changed payload is 409 operation_payload_conflict and runs nothing", async () => {
    h = await startHarness();
    const ctx = await context();
    expect((await h.post("/prompt", { text: "a", operation_context: ctx })).status).toBe(202);
    const res = await h.post("/prompt", { text: "b", operation_context: ctx });
    expect(res.status).toBe(409);
    expect((await res.json()).code).toBe("operation_payload_conflict");
    await h.engine().idle();
    expect(h.engine().ran).toEqual(["a"]);
  });

  test("a retry that spells out a field's default (when_busy: queue, images: []) is the same payload; another value is not", async () => {
    h = await startHarness();
    const ctx = await context();
    const first = await h.post("/prompt", { text: "a", operation_context: ctx });
    expect(first.status).toBe(202);
    const firstBody = await first.json();
    const retry = await h.post("/prompt", { text: "a", when_busy: "queue", images: [], operation_context: ctx });
    expect(retry.status).toBe(202);
    expect((await retry.json()).prompt_id).toBe(firstBody.prompt_id);
    const other = await h.post("/prompt", { text: "a", when_busy: "reject", operation_context: ctx });
    expect(other.status).toBe(409);
    expect((await other.json()).code).toBe("operation_payload_conflict");
    await h.engine().idle();
    expect(h.engine().ran).toEqual(["a"]);
  });

  test("windows expire after 10 minutes (fake clock): 410 operation_expired; /sync issues a fresh one", async () => {
    const clock = testClock();
    h = await startHarness({ clock });
    const ctx = await context();
    clock.advance(10 * 60_000);
    const res = await h.post("/prompt", { text: "late", operation_context: ctx });
    expect(res.status).toBe(410);
    expect((await res.json()).code).toBe("operation_expired");
    const fresh = await context();
    expect(fresh.window).not.toBe(ctx.window);
    expect((await h.post("/prompt", { text: "late", operation_context: fresh })).status).toBe(202);
  });

  test("a context from another epoch is 409 epoch_mismatch; a forged window is 400", async () => {
    h = await startHarness();
    const ctx = await context();
    const stale = await h.post("/prompt", { text: "x", operation_context: { ...ctx, daemon_epoch: "ep_older" } });
    expect(stale.status).toBe(409);
    expect((await stale.json()).code).toBe("epoch_mismatch");
    const forged = await h.post("/prompt", { text: "x", operation_context: { ...ctx, window: `${ctx.window}x` } });
    expect(forged.status).toBe(400);
    expect((await forged.json()).code).toBe("invalid_operation_context");
    const notUuid = await h.post("/prompt", { text: "x", operation_context: { ...ctx, operation: "42" } });
    expect(notUuid.status).toBe(422);
    expect(h.engine().ran).toEqual([]);
  });

  test("a full ledger answers new operations with 429 operation_capacity_exceeded; stored ones still replay", async () => {
    h = await startHarness({ limits: { ledgerEntries: 2 } });
    const a = await context();
    const b = await context();
    expect((await h.post("/prompt", { text: "a", operation_context: a })).status).toBe(202);
    await h.engine().idle();
    expect((await h.post("/prompt", { text: "b", operation_context: b })).status).toBe(202);
    await h.engine().idle();
    const c = await h.post("/prompt", { text: "c", operation_context: await context() });
    expect(c.status).toBe(429);
    expect((await c.json()).code).toBe("operation_capacity_exceeded");
    expect((await h.post("/prompt", { text: "a", operation_context: a })).status).toBe(202);
    expect(h.engine().ran).toEqual(["a", "b"]);
  });

  test("when_busy: reject during a turn is 409 turn_in_flight, durable and replayable; the default queues", async () => {
    h = await startHarness({ engine: { hold: true } });
    await h.post("/prompt", { text: "long" });
    await until(() => h.engine().held, "the turn to hold");
    const ctx = await context();
    const busy = await h.post("/prompt", { text: "now", when_busy: "reject", operation_context: ctx });
    expect(busy.status).toBe(409);
    const body = await busy.json();
    expect(body.code).toBe("turn_in_flight");
    expect(body.operation).toMatchObject({ status: "failed", error: { code: "turn_in_flight" } });
    const replay = await h.post("/prompt", { text: "now", when_busy: "reject", operation_context: ctx });
    expect(replay.status).toBe(409);
    expect(await replay.json()).toEqual(body);
    const queued = await (await h.post("/prompt", { text: "later" })).json();
    expect(queued.queued).toBe(true);
    const snap = await (await h.get("/sync")).json();
    expect(snap.turn.busy).toBe(true);
    expect(snap.turn.queue.map((q: { text: string }) => q.text)).toEqual(["later"]);
    h.engine().release();
    await until(() => h.engine().ran.length === 2, "the queued prompt");
    h.engine().release();
    await h.engine().idle();
    expect(h.engine().ran).toEqual(["long", "later"]);
  });

  test("the newest queued input can be dequeued; its prompt's result completes as dequeued", async () => {
    h = await startHarness({ engine: { hold: true } });
    await h.post("/prompt", { text: "running" });
    await until(() => h.engine().held, "the turn to hold");
    const ctx = await context();
    const queued = await (await h.post("/prompt", { text: "second thoughts", operation_context: ctx })).json();
    expect(queued.queued).toBe(true);
    const dq = await h.post("/queue/dequeue-newest", { operation_context: await context() });
    expect(dq.status).toBe(200);
    expect((await dq.json()).input).toEqual({ id: queued.prompt_id, text: "second thoughts" });
    const replay = await (await h.post("/prompt", { text: "second thoughts", operation_context: ctx })).json();
    expect(replay.operation).toMatchObject({ status: "completed", outcome: { dequeued: true } });
    const empty = await (await h.post("/queue/dequeue-newest", {})).json();
    expect(empty).toEqual({ input: null, operation: null });
    h.engine().release();
    await h.engine().idle();
    expect(h.engine().ran).toEqual(["running"]);
  });
});

describe("interrogatives", () => {
  test("an open question shows as attention; answering it lets the turn go on; a second answer is not pending", async () => {
    h = await startHarness();
    await h.post("/prompt", { text: "ASK before listing" });
    await until(() => h.running.daemon.host.pending.size === 1, "the question");
    const summary = await (await h.get("/sync/summary")).json();
    expect(summary.attention).toBe(true);
    const snap = await (await h.get("/sync")).json();
    const [question] = snap.turn.pending_interrogatives;
    expect(question).toMatchObject({ kind: "permission", tool: "shell" });
    const res = await h.post(`/interrogatives/${question.id}/response`, { answer: { decision: "allow_once" }, operation_context: await context() });
    expect(res.status).toBe(200);
    expect((await res.json()).operation.status).toBe("completed");
    await h.engine().idle();
    const again = await h.post(`/interrogatives/${question.id}/response`, { answer: { decision: "allow_once" } });
    expect(again.status).toBe(409);
    expect((await again.json()).code).toBe("interrogative_not_pending");
  });

  test("a question withdrawn by an interrupt answers 409 interrogative_withdrawn, stored as a failed result", async () => {
    h = await startHarness();
    await h.post("/prompt", { text: "ASK first" });
    await until(() => h.running.daemon.host.pending.size === 1, "the question");
    const [id] = [...h.running.daemon.host.pending.keys()];
    expect((await h.post("/interrupt")).status).toBe(200);
    await h.engine().idle();
    const ctx = await context();
    const res = await h.post(`/interrogatives/${id}/response`, { answer: { decision: "deny", message: "no" }, operation_context: ctx });
    expect(res.status).toBe(409);
    const body = await res.json();
    expect(body).toMatchObject({ code: "interrogative_withdrawn", operation: { status: "failed", error: { code: "interrogative_withdrawn" } } });
    const replay = await h.post(`/interrogatives/${id}/response`, { answer: { decision: "deny", message: "no" }, operation_context: ctx });
    expect(await replay.json()).toEqual(body);
  });

  test("a malformed answer is a 422 naming the field, without echoing values", async () => {
    h = await startHarness();
    const res = await h.post("/interrogatives/itg_1/response", { answer: { decision: "maybe-sk-live-0123456789abcdefXYZ" } });
    expect(res.status).toBe(422);
    const text = await res.text();
    expect(text).toContain("/answer");
    expect(text).not.toContain("sk-live");
  });
});
