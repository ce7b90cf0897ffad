// The /events stream as clients see it: the third-party `eventsource` client resuming with Last-Event-ID
// after a dropped connection, a slow subscriber reset, heartbeats on an idle stream, and the legacy stream.
import { afterEach, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { EventSource } from "eventsource";
import { until } from "../fakes/fake-clock.ts";
import { type Harness, readSse, startHarness, TOKEN } from "./harness.ts";

let h: Harness;
afterEach(async () => {
  await h?.stop();
});

/** A response whose body ends right after its first `records` frame: a connection lost mid-stream. */
function cutAfterFirstFrame(res: Response): Response {
  const reader = res.body!.getReader();
  let seen = "";
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) return controller.close();
      seen += new TextDecoder().decode(value);
      const at = seen.indexOf("event: records");
      const end = at >= 0 ? seen.indexOf("\n\n", at) : -1;
      if (end < 0) return;
      controller.enqueue(new TextEncoder().encode(seen.slice(0, end + 2)));
      await reader.cancel();
      controller.close();
    },
  });
  return new Response(body, { status: res.status, headers: res.headers });
}

describe("eventsource client", () => {
  test("resumes with Last-Event-ID after a dropped connection: every record once, in order", async () => {
    h = await startHarness({ limits: { frameRecords: 3 } });
    const origin = (await (await h.get("/sync")).json()).origin_cursor;
    await h.post("/prompt", { text: "resume me" });
    await h.engine().idle();
    h.running.daemon.hub.flush();
    const total = h.running.daemon.hub.lastSeq;

    const lastEventIds: (string | null)[] = [];
    let calls = 0;
    const es = new EventSource(`${h.url}/events?after=${encodeURIComponent(origin)}`, {
      fetch: async (input, init) => {
        const headers = new Headers(init?.headers as HeadersInit);
        lastEventIds.push(headers.get("last-event-id"));
        headers.set("Authorization", `Bearer ${TOKEN}`);
        const res = await fetch(input, { ...init, headers });
        return ++calls === 1 ? cutAfterFirstFrame(res) : res;
      },
    });
    const seqs: number[] = [];
    const frameIds: string[] = [];
    es.addEventListener("records", (e) => {
      frameIds.push(e.lastEventId);
      for (const r of JSON.parse(e.data).records) seqs.push(Number(r.seq));
    });
    await until(() => seqs.length >= total, "all records through the eventsource client");
    es.close();
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(lastEventIds[0]).toBeNull();
    expect(lastEventIds[1]).toBe(frameIds[0]!);
    expect(seqs).toEqual(Array.from({ length: total }, (_, i) => i + 1));
  }, 15_000);
});

describe("live stream limits", () => {
  test("a subscriber too slow for its bounded buffer gets a reset event and the stream ends", async () => {
    h = await startHarness({ limits: { subscriberBufferBytes: 256 * 1024 } });
    const cursor = (await (await h.get("/sync")).json()).cursor;
    const socket = connect(h.running.server.port!, "127.0.0.1");
    let received = "";
    socket.on("data", (d) => (received += d.toString("latin1")));
    await new Promise((r) => socket.once("connect", r));
    socket.write(`GET /events?after=${encodeURIComponent(cursor)} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
    await until(() => received.includes(": sync stream"), "the stream to open");
    socket.pause();
    // Far more than the socket buffers and the subscriber's bound can hold while nobody reads.
    for (let i = 0; i < 400; i++) {
      h.running.daemon.hub.publish({ type: "notice", level: "info", message: "x".repeat(64 * 1024) });
      h.running.daemon.hub.flush();
      await Bun.sleep(0);
    }
    expect(h.running.daemon.hub.subscriberCount).toBe(0);
    socket.resume();
    await until(() => received.includes("event: reset"), "the reset event");
    expect(received).toContain('"code":"reset_required"');
    socket.destroy();
  }, 20_000);

  test("an idle stream carries heartbeats", async () => {
    h = await startHarness({ limits: { heartbeatMs: 20 } });
    const cursor = (await (await h.get("/sync")).json()).cursor;
    const events = await readSse(await h.get(`/events?after=${encodeURIComponent(cursor)}`), (ev) => ev.some((e) => e.event === "comment" && e.data.includes("heartbeat")));
    expect(events.some((e) => e.data.includes("heartbeat"))).toBe(true);
  });

  test("without a cursor the route carries the legacy event stream: engine events named by type", async () => {
    h = await startHarness();
    const stream = await h.get("/events");
    const reading = readSse(stream, (ev) => ev.some((e) => e.event === "turn_completed"));
    await until(() => h.running.daemon.hub.subscriberCount === 1, "the legacy subscriber");
    await h.post("/prompt", { text: "legacy" });
    const events = (await reading).filter((e) => e.event !== "comment");
    expect(events.map((e) => e.event)).toContain("turn_started");
    const started = JSON.parse(events.find((e) => e.event === "turn_started")!.data);
    expect(started.type).toBe("turn_started");
    expect(started.version).toBeUndefined();
    expect(events.every((e) => e.id === undefined)).toBe(true);
  });
});
