// The connect picker's fleet feed on a stream that goes silent without closing: after the silence deadline
// the picker says it is not live, and the feed resumes from the last applied cursor (no new catalog);
// heartbeat events alone keep it live. A fake gateway on 127.0.0.1; the deadline runs on a manual timer.
import { afterEach, describe, expect, test } from "bun:test";
import { SILENCE_MS } from "../../src/client/daemon-sse.ts";
import { FleetFeed } from "../../tui/connect/fleet-feed.ts";
import { FleetStore, type CatalogPage } from "../../tui/connect/fleet-store.ts";
import { ManualTimers, until } from "../client/manual-timers.ts";

const AT = "2025-03-04T05:06:07.000Z";
const CATALOG: CatalogPage = {
  version: 1,
  fleet_epoch: "fe1",
  cursor: "cur0",
  snapshot: "snap",
  expires_at: AT,
  features: [],
  page: { index: 0, count: 1, next: null, entries: 0, total_projects: 0, total_sessions: 0 },
  projects: [],
  sessions: [],
};
const project = (cursor: string, id: string) =>
  `data: ${JSON.stringify({ version: 1, fleet_epoch: "fe1", cursor, at: AT, type: "project_upserted", project: { project_id: id, path: `/srv/${id}`, config_name: "default", registered_at: AT, updated_at: AT } })}\n\n`;
const heartbeat = (cursor: string) => `data: ${JSON.stringify({ version: 1, fleet_epoch: "fe1", cursor, at: AT, type: "heartbeat" })}\n\n`;

function fakeGateway() {
  const streams: { after: string; send(text: string): void }[] = [];
  let catalogs = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req, srv) {
      const url = new URL(req.url);
      if (url.pathname === "/api/v1/catalog") return (catalogs++, Response.json(CATALOG));
      if (url.pathname !== "/api/v1/events") return new Response("not found", { status: 404 });
      srv.timeout(req, 0);
      const stream = { after: url.searchParams.get("after") ?? "", send: (_: string) => {} };
      streams.push(stream);
      const body = new ReadableStream<Uint8Array>({ start: (c) => void (stream.send = (text) => c.enqueue(new TextEncoder().encode(text))) });
      return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, streams, catalogs: () => catalogs, stop: () => server.stop(true) };
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function feed() {
  const gateway = fakeGateway();
  const timers = new ManualTimers();
  const store = new FleetStore();
  const stop = new AbortController();
  void new FleetFeed((path, signal) => fetch(gateway.url + path, { signal }), store, { baseDelayMs: 5, liveness: { timers } }).run(stop.signal);
  cleanups.push(() => {
    stop.abort();
    gateway.stop();
  });
  return { gateway, timers, store };
}

describe("fleet feed on a silent stream", () => {
  test("is shown as not live at the deadline and resumes from the last applied cursor", async () => {
    const f = feed();
    await until(() => f.gateway.streams.length === 1, "the fleet stream");
    f.gateway.streams[0]!.send(project("cur1", "p1"));
    await until(() => f.store.cursor === "cur1" && f.store.feed === "live" && f.timers.waiting === 1, "the event applied");
    f.timers.advance(SILENCE_MS - 1);
    await Bun.sleep(20);
    expect(f.store.feed).toBe("live");
    f.timers.advance(1);
    await until(() => f.store.feed === "reconnecting", "the feed to say it is not live");
    expect(f.store.problem).toBe("the event stream sent nothing for 35 s (no records, no heartbeat): the connection is lost");
    await until(() => f.gateway.streams.length === 2, "a new fleet stream");
    f.gateway.streams[1]!.send(project("cur2", "p2"));
    await until(() => f.store.feed === "live" && f.store.cursor === "cur2", "the feed live again");
    expect([f.gateway.streams.map((s) => s.after), f.gateway.catalogs(), [...f.store.projects.keys()]]).toEqual([["cur0", "cur1"], 1, ["p1", "p2"]]);
  });

  test("heartbeat events alone keep the feed live", async () => {
    const f = feed();
    await until(() => f.gateway.streams.length === 1, "the fleet stream");
    for (let n = 1; n <= 6; n++) {
      const armed = f.timers.armed;
      f.gateway.streams[0]!.send(heartbeat(`cur${n}`));
      await until(() => f.timers.armed > armed && f.store.cursor === `cur${n}`, `heartbeat ${n}`);
      f.timers.advance(30_000);
    }
    expect([f.store.feed, f.gateway.streams.length]).toEqual(["live", 1]);
  });
});
