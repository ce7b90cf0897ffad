// What a host agent sends to a front over the mux (a real WebSocket on 127.0.0.1; the front here is a strict
// stand-in that checks each request): every RemoteSessionStore method is POST /front/v1/store/<method> with
// {args}, its result comes back, the front's error comes back as a ProtocolError with its status; and the
// agent's loopback services listener forwards /api/v1/services/* (only) with the daemon's bearer.
import { afterEach, expect, test } from "bun:test";
import { ProtocolError } from "../../../src/protocol/errors.ts";
import { Fronts } from "../../../src/gateway/hosts/agent/fronts.ts";
import { RemoteSessionStore } from "../../../src/gateway/hosts/agent/remote-store.ts";
import { ServicesListener } from "../../../src/gateway/hosts/agent/services-listener.ts";
import type { MuxConnection } from "../../../src/gateway/hosts/mux/connection.ts";
import { until } from "../sessions/helpers.ts";
import { startFront } from "./mux-pair.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const silent = { info() {}, warn() {}, error() {} };

/** A host agent's Fronts joined to one stand-in front; `serve` is the front's handler of the host's requests. */
async function joined(serve: (req: Request) => Promise<Response>): Promise<{ fronts: Fronts; front: MuxConnection }> {
  const f = startFront();
  const fronts = new Fronts({ urls: [f.url.replace("/api/v1/hosts/connect", "")], token: "hst_test", hostName: "host-a", fingerprints: [], handler: async () => new Response(null, { status: 404 }), logger: silent });
  fronts.start();
  cleanups.push(() => {
    fronts.stop();
    f.server.stop(true);
  });
  const front = await f.next();
  front.serve(serve);
  await until(() => fronts.connected().length === 1, "the connection");
  return { fronts, front };
}

test("each store method is one POST /front/v1/store/<method> {args}; results come back, errors as ProtocolErrors with the front's status", async () => {
  const seen: { method: string; path: string; contentType: string | null; args: unknown[] }[] = [];
  const row = { id: "ses_1", state: "running", ownerHost: "host-a", createdAt: 1 };
  const { fronts } = await joined(async (req) => {
    const path = new URL(req.url).pathname;
    const body = (await req.json()) as { args: unknown[] };
    seen.push({ method: req.method, path, contentType: req.headers.get("content-type"), args: body.args });
    const method = path.slice("/front/v1/store/".length);
    if (method === "session") return Response.json({ result: body.args[0] === "ses_1" ? row : null });
    if (method === "transition") return Response.json({ result: body.args[1] instanceof Array && (body.args[1] as string[]).includes("running") });
    if (method === "issueCredential") return Response.json({ result: { generationId: "gen_1", token: "dsc_gen_1.secret" } });
    if (method === "remove") return Response.json({ error: "owned_by_other_host", message: "session ses_9 is supervised by gateway host host-b" }, { status: 409 });
    if (method === "announce" || method === "update" || method === "invalidateCredentials") return Response.json({});
    return Response.json({ error: "not_found", message: `no store method ${method}` }, { status: 404 });
  });
  const store = new RemoteSessionStore(fronts);
  expect(await store.session("ses_1")).toEqual(row as never);
  expect(await store.session("ses_2")).toBeUndefined();
  let committed = 0;
  expect(await store.transition("ses_1", ["running"], "stopped", "stop", undefined, { pid: null }, () => committed++)).toBe(true);
  expect(await store.transition("ses_1", ["starting"], "running", "daemon_healthy", "x", {}, () => committed++)).toBe(false);
  expect(committed).toBe(1);
  expect(await store.issueCredential("ses_1", { services: ["x"] })).toEqual({ generationId: "gen_1", token: "dsc_gen_1.secret" });
  await store.update("ses_1", { port: 4100 });
  await store.invalidateCredentials("ses_1", "session_stopped");
  await store.announce([{ sessionId: "ses_1", pid: 42, startTicks: "7", port: 4100, daemonEpoch: "ep" }]);
  const refused = await store.remove("ses_9").catch((e) => e);
  expect(refused).toBeInstanceOf(ProtocolError);
  expect(refused).toMatchObject({ status: 409, code: "owned_by_other_host", message: "session ses_9 is supervised by gateway host host-b" });
  expect(seen.map((s) => [s.method, s.path, s.contentType])).toEqual(
    ["session", "session", "transition", "transition", "issueCredential", "update", "invalidateCredentials", "announce", "remove"].map((m) => ["POST", `/front/v1/store/${m}`, "application/json"]),
  );
  expect(seen[2]!.args).toEqual(["ses_1", ["running"], "stopped", "stop", null, { pid: null }]);
  expect(seen[5]!.args).toEqual(["ses_1", { port: 4100 }]);
  expect(seen[7]!.args).toEqual([[{ sessionId: "ses_1", pid: 42, startTicks: "7", port: 4100, daemonEpoch: "ep" }]]);
});

test("a front that keeps a store call past its bound: 504 gateway_timeout naming the call, and the front's exchange is aborted", async () => {
  let aborted = false;
  const { fronts } = await joined(async (req) => {
    req.signal.addEventListener("abort", () => (aborted = true));
    return new Promise<Response>(() => {});
  });
  const refused = await new RemoteSessionStore(fronts, 200).sessions().catch((e) => e);
  expect(refused).toBeInstanceOf(ProtocolError);
  expect(refused).toMatchObject({ status: 504, code: "gateway_timeout", message: "the gateway front did not answer the store call sessions within 0.2s" });
  await until(() => aborted, "the front's exchange to be aborted");
});

test("no front connected: a store call fails with 503 no_front_reachable (what the supervisor surfaces)", async () => {
  const fronts = new Fronts({ urls: ["http://127.0.0.1:9"], token: "hst_test", hostName: "host-a", fingerprints: [], handler: async () => new Response(null), logger: silent });
  const refused = await new RemoteSessionStore(fronts).sessions().catch((e) => e);
  expect(refused).toMatchObject({ status: 503, code: "no_front_reachable" });
});

test("the services listener forwards /api/v1/services/* with the daemon's bearer and body, streams the answer back, and serves nothing else", async () => {
  const seen: { method: string; url: string; auth: string | null; cookie: string | null; body: string }[] = [];
  const { fronts } = await joined(async (req) => {
    seen.push({ method: req.method, url: new URL(req.url).pathname + new URL(req.url).search, auth: req.headers.get("authorization"), cookie: req.headers.get("cookie"), body: await req.text() });
    if (new URL(req.url).pathname.endsWith("/stream")) {
      return new Response(new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode("data: one\n\n")); c.enqueue(new TextEncoder().encode("data: two\n\n")); c.close(); } }), { headers: { "content-type": "text/event-stream" } });
    }
    return Response.json({ ok: true }, { status: 201, headers: { "x-front": "a" } });
  });
  const listener = new ServicesListener(fronts);
  const base = listener.start();
  cleanups.push(() => listener.stop());
  expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

  const posted = await fetch(`${base}/api/v1/services/checkin?x=1`, { method: "POST", headers: { authorization: "Bearer dsc_gen_1.s", cookie: "a=b", "content-type": "application/json" }, body: '{"hello":1}' });
  expect(posted.status).toBe(201);
  expect(posted.headers.get("x-front")).toBe("a");
  expect(await posted.json()).toEqual({ ok: true });
  expect(seen[0]).toEqual({ method: "POST", url: "/api/v1/services/checkin?x=1", auth: "Bearer dsc_gen_1.s", cookie: null, body: '{"hello":1}' });

  const streamed = await fetch(`${base}/api/v1/services/stream`, { headers: { authorization: "Bearer dsc_gen_1.s" } });
  expect(streamed.headers.get("content-type")).toBe("text/event-stream");
  expect(await streamed.text()).toBe("data: one\n\ndata: two\n\n");

  for (const path of ["/api/v1/sessions", "/api/v1/services", "/host/v1/sessions/ses_1/stop", "/"]) {
    const res = await fetch(`${base}${path}`, { headers: { authorization: "Bearer dsc_gen_1.s" } });
    expect(res.status).toBe(404);
    expect((await res.json()).message).toBe("this host agent forwards only /api/v1/services/* to the gateway");
  }
  expect(seen).toHaveLength(2);
});
