// A daemon stream that goes silent without closing its socket is a lost connection: the follower gives it
// up after the silence deadline, reports it, and follows again from the last APPLIED cursor. Heartbeat
// comments alone keep a quiet stream live. A fake daemon on 127.0.0.1 serves /sync and an /events stream
// the test writes to by hand; the deadline runs on a manual timer.
import { afterEach, describe, expect, test } from "bun:test";
import { DaemonClient } from "../../src/client/daemon-client.ts";
import { SILENCE_MS } from "../../src/client/daemon-sse.ts";
import type { SyncRecord } from "../../src/protocol/sync-record.ts";
import type { SyncSnapshotBody } from "../../src/protocol/sync-shapes.ts";
import { ManualTimers, until } from "./manual-timers.ts";

interface EventStream {
  after: string;
  send(text: string): void;
  cancelled: boolean;
}

/** A daemon that answers /sync and holds every /events stream open until the test writes or the client leaves. */
function fakeDaemon() {
  const streams: EventStream[] = [];
  const encoder = new TextEncoder();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req, srv) {
      const url = new URL(req.url);
      if (url.pathname === "/sync") return Response.json({ daemon_epoch: "ep1", origin_cursor: "c0", operation_window: null });
      if (url.pathname !== "/events") return new Response("not found", { status: 404 });
      srv.timeout(req, 0);
      const stream: EventStream = { after: url.searchParams.get("after") ?? "", send: () => {}, cancelled: false };
      streams.push(stream);
      return new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            stream.send = (text) => controller.enqueue(encoder.encode(text));
          },
          cancel() {
            stream.cancelled = true;
          },
        }),
        { headers: { "Content-Type": "text/event-stream" } },
      );
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, streams, stop: () => server.stop(true) };
}

const frame = (cursor: string, n: number) => `id: ${cursor}\nevent: records\ndata: ${JSON.stringify({ records: [{ seq: n, type: "test" }] })}\n\n`;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function follow() {
  const daemon = fakeDaemon();
  const timers = new ManualTimers();
  const client = new DaemonClient({ url: daemon.url, token: "t", retryDelayMs: 5, liveness: { timers } });
  const applied: number[] = [];
  const problems: string[] = [];
  const snapshots: boolean[] = [];
  const stop = new AbortController();
  const following = client.follow(
    {
      onSnapshot: (_snap: SyncSnapshotBody, rebuild) => snapshots.push(rebuild),
      onRecords: (records: SyncRecord[]) => void applied.push(...records.map((r) => (r as unknown as { seq: number }).seq)),
      onProblem: (message) => problems.push(message),
    },
    stop.signal,
  );
  cleanups.push(() => {
    stop.abort();
    daemon.stop();
  });
  return { daemon, timers, client, applied, problems, snapshots, following, stop };
}

describe("a silent daemon stream", () => {
  test("is reported lost at the deadline, its socket is dropped, and it is followed again from the applied cursor", async () => {
    const f = follow();
    await until(() => f.daemon.streams.length === 1, "the first /events stream");
    f.daemon.streams[0]!.send(frame("c1", 1));
    await until(() => f.client.appliedCursor === "c1" && f.timers.waiting === 1, "frame c1 applied and the next wait armed");
    f.timers.advance(SILENCE_MS - 1);
    await Bun.sleep(20);
    expect(f.problems).toEqual([]);
    f.timers.advance(1);
    await until(() => f.problems.length === 1, "the silence to be reported");
    expect(f.problems[0]).toBe("the event stream sent nothing for 35 s (no records, no heartbeat): the connection is lost");
    await until(() => f.daemon.streams[0]!.cancelled, "the silent stream to be given up");
    // Followed again in the same epoch: from the cursor of the last applied frame, no rebuild.
    await until(() => f.daemon.streams.length === 2, "a new /events stream");
    expect(f.daemon.streams.map((s) => s.after)).toEqual(["c0", "c1"]);
    expect(f.snapshots).toEqual([true, false]);
    f.daemon.streams[1]!.send(frame("c2", 2));
    await until(() => f.client.appliedCursor === "c2", "frame c2 applied");
    expect(f.applied).toEqual([1, 2]);
    expect(f.problems.length).toBe(1);
  });

  test("heartbeat comments alone keep a quiet stream live; without them it is lost", async () => {
    const f = follow();
    await until(() => f.daemon.streams.length === 1 && f.timers.waiting === 1, "the first /events stream");
    for (let beat = 0; beat < 6; beat++) {
      f.timers.advance(30_000);
      const armed = f.timers.armed;
      f.daemon.streams[0]!.send(": heartbeat\n\n");
      await until(() => f.timers.armed > armed, "the heartbeat to be read");
    }
    // Three minutes of fake time on one stream, nothing but heartbeats: still the first stream, no problem.
    expect([f.problems, f.daemon.streams.length, f.applied]).toEqual([[], 1, []]);
    f.timers.advance(SILENCE_MS);
    await until(() => f.problems.length === 1 && f.daemon.streams.length === 2, "the silence to be reported and a new stream");
  });

  test("a daemon that takes the /events request and never answers it is given up at the same deadline", async () => {
    const f = follow();
    await until(() => f.daemon.streams.length === 1 && f.timers.waiting === 1, "the /events request to be waiting");
    f.timers.advance(SILENCE_MS);
    await until(() => f.problems.length === 1 && f.daemon.streams.length === 2, "the silence to be reported and a new request");
    expect(f.problems[0]).toContain("sent nothing for 35 s");
  });

  test("a daemon that keeps sending records is never given up", async () => {
    const f = follow();
    await until(() => f.daemon.streams.length === 1 && f.timers.waiting === 1, "the first /events stream");
    for (let n = 1; n <= 5; n++) {
      f.timers.advance(SILENCE_MS - 1);
      f.daemon.streams[0]!.send(frame(`c${n}`, n));
      await until(() => f.client.appliedCursor === `c${n}`, `frame c${n} applied`);
    }
    expect([f.problems, f.daemon.streams.length, f.applied]).toEqual([[], 1, [1, 2, 3, 4, 5]]);
  });
});
