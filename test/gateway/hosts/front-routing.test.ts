// Front routing by owner (docs/gateway-hosts.md): a gateway front holding a joined host's connection (a real
// mux over WebSockets) forwards that host's session operations, the session proxy (SSE included, the client's
// abort reaching the host) and new sessions of its projects to the host API, and answers 503 host_offline
// when the host is not connected, 409 owned_by_other_host for another front replica. The host side is a
// recording stand-in for the host API (our own protocol; the real host agent has its own tests).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { sqlAll, startTestGateway, type TestGateway } from "../helpers.ts";
import { api, machineToken, registerProject } from "../sessions/helpers.ts";
import { muxPair, type MuxPair } from "./mux-pair.ts";

const HOST = "build-2";

interface Seen {
  method: string;
  path: string;
  authorization: string | null;
  cookie: string | null;
  accept: string | null;
  body: string;
}

let gw: TestGateway & { token: string };
let pair: MuxPair | undefined;
const seen: Seen[] = [];
/** What the stand-in host answers next (by "METHOD path"); default 200 with a small record. */
const answers = new Map<string, () => Response>();
let sseAborted: Promise<string> = Promise.resolve("");

function record(id: string, state: string) {
  return { id, state, owner_host: HOST, from: "the host" };
}

async function hostApi(request: Request): Promise<Response> {
  const url = new URL(request.url);
  seen.push({ method: request.method, path: url.pathname + url.search, authorization: request.headers.get("authorization"), cookie: request.headers.get("cookie"), accept: request.headers.get("accept"), body: await request.text() });
  const answer = answers.get(`${request.method} ${url.pathname}`);
  if (answer) return answer();
  return Response.json(record("ses_x", "running"));
}

async function connectHost(): Promise<void> {
  pair = await muxPair({ host: { name: HOST } });
  pair.host.serve(hostApi);
  gw.ctx.hostLinks.add({ hostName: HOST, connection: pair.front, credentialId: "hcr_test", since: gw.clock.now() });
}

async function disconnectHost(): Promise<void> {
  if (!pair) return;
  gw.ctx.hostLinks.remove(HOST, pair.front);
  await pair.stop();
  pair = undefined;
}

/** A session row of `owner` (as its host's store would insert it), on a project of that host. */
async function remoteSession(owner: string): Promise<{ id: string; projectId: string }> {
  const { projectId } = await registerProject(gw);
  await sqlAll(gw.ctx.db, "UPDATE projects SET owner_host = ? WHERE id = ?", [owner, projectId]);
  const id = `ses_${Math.random().toString(36).slice(2, 12)}`;
  await gw.ctx.sessions.store.insert({ id, projectId, launchMode: "project_direct", sessionDir: `/var/agent/${id}`, worktreePath: null, worktreeBranch: null, ownerHost: owner });
  return { id, projectId };
}

beforeAll(async () => {
  const started = await startTestGateway();
  gw = Object.assign(started, { token: await machineToken(started) });
  // build-2 is a joined host agent: a host credential was issued for it. Presence rows (the hosts table) exist
  // for fronts too, so front-b has one and is still a front replica.
  await sqlAll(gw.ctx.db, "INSERT INTO host_credentials (id, host_name, token_hash, label, created_at) VALUES (?, ?, ?, ?, ?)", ["hcr_test", HOST, "0".repeat(64), "test", 0]);
  await sqlAll(gw.ctx.db, "INSERT INTO hosts (name, first_seen_at, last_seen_at, online_until) VALUES (?, ?, ?, ?)", ["front-b", 0, 0, 0]);
});

afterAll(async () => {
  await disconnectHost();
  await gw.stop();
});

afterEach(async () => {
  await disconnectHost();
  seen.length = 0;
  answers.clear();
});

describe("a session of a connected host", () => {
  test("stop, resume, health and delete go to the host API; its status and body come back as they are; the caller's token stays on the front", async () => {
    await connectHost();
    const { id } = await remoteSession(HOST);
    const a = api(gw);
    answers.set(`POST /host/v1/sessions/${id}/stop`, () => Response.json(record(id, "stopped")));
    answers.set(`POST /host/v1/sessions/${id}/resume`, () => Response.json({ error: "unavailable", message: "the session could not be resumed: pre-run.sh exited with status 1" }, { status: 503 }));
    answers.set(`GET /host/v1/sessions/${id}/health`, () => Response.json(record(id, "failed")));
    answers.set(`DELETE /host/v1/sessions/${id}`, () => new Response(null, { status: 204 }));

    const stopped = await a.call("POST", `/api/v1/sessions/${id}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body).toEqual(record(id, "stopped"));
    const resumed = await a.call("POST", `/api/v1/sessions/${id}/resume`);
    expect(resumed.status).toBe(503);
    expect(resumed.body).toEqual({ error: "unavailable", message: "the session could not be resumed: pre-run.sh exited with status 1" });
    const read = await a.get(id);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(record(id, "failed"));
    const deleted = await a.call("DELETE", `/api/v1/sessions/${id}`);
    expect(deleted.status).toBe(204);

    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual([`POST /host/v1/sessions/${id}/stop`, `POST /host/v1/sessions/${id}/resume`, `GET /host/v1/sessions/${id}/health`, `DELETE /host/v1/sessions/${id}`]);
    expect(seen.every((s) => s.authorization === null)).toBe(true);
    // Audited on the front that received them, only what succeeded.
    const audit = (await sqlAll<{ action: string }>(gw.ctx.db, "SELECT action FROM audit_events WHERE target = ? ORDER BY id", [id])).map((r) => r.action);
    expect(audit).toEqual(["session.stop", "session.delete"]);
  });

  test("the session proxy forwards method, path, query, body and headers, without the caller's credential or cookies", async () => {
    await connectHost();
    const { id } = await remoteSession(HOST);
    answers.set(`POST /host/v1/sessions/${id}/proxy/session/commands`, () => Response.json({ accepted: true }, { status: 202, headers: { "x-daemon": "yes" } }));
    const res = await fetch(`${gw.url}/api/v1/sessions/${id}/proxy/session/commands?wait=1`, {
      method: "POST",
      headers: { Authorization: `Bearer ${gw.token}`, Cookie: "agent_session=secret", "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ prompt: "hi" }),
    });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ accepted: true });
    expect(res.headers.get("x-daemon")).toBe("yes");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(seen).toEqual([{ method: "POST", path: `/host/v1/sessions/${id}/proxy/session/commands?wait=1`, authorization: null, cookie: null, accept: "application/json", body: JSON.stringify({ prompt: "hi" }) }]);
  });

  test("a small answer reaches the client whole with its length; a session proxied before answers 503 host_offline once its host is gone, and is forwarded again when it is back", async () => {
    await connectHost();
    const { id } = await remoteSession(HOST);
    const body = JSON.stringify({ status: "ok" });
    answers.set(`GET /host/v1/sessions/${id}/proxy/health`, () => new Response(body, { headers: { "content-type": "application/json", "content-length": String(body.length) } }));
    const proxied = () => fetch(`${gw.url}/api/v1/sessions/${id}/proxy/health`, { headers: { Authorization: `Bearer ${gw.token}` } });
    const first = await proxied();
    expect(first.status).toBe(200);
    expect(first.headers.get("content-length")).toBe(String(body.length));
    expect(await first.text()).toBe(body);
    await disconnectHost();
    const offline = await api(gw).call("GET", `/api/v1/sessions/${id}/proxy/health`);
    expect([offline.status, offline.body]).toEqual([503, { error: "host_offline", message: `session ${id} is on host ${HOST}, which is not connected to this gateway front` }]);
    await connectHost();
    const again = await proxied();
    expect([again.status, await again.text()]).toEqual([200, body]);
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual([`GET /host/v1/sessions/${id}/proxy/health`, `GET /host/v1/sessions/${id}/proxy/health`]);
  });

  test("an SSE stream is relayed as the host sends it, and the client going away ends the host's stream", async () => {
    await connectHost();
    const { id } = await remoteSession(HOST);
    let aborted!: (how: string) => void;
    sseAborted = new Promise((resolve) => (aborted = resolve));
    answers.set(`GET /host/v1/sessions/${id}/proxy/session/events`, () => {
      let n = 0;
      return new Response(
        new ReadableStream<string>({
          async pull(controller) {
            // One event, then one more each time the reader asks, never ending by itself.
            controller.enqueue(`id: ${++n}\ndata: {"n":${n}}\n\n`);
            await Bun.sleep(20);
          },
          cancel(reason) {
            aborted(`cancelled: ${String(reason)}`);
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      );
    });
    const client = new AbortController();
    const res = await fetch(`${gw.url}/api/v1/sessions/${id}/proxy/session/events`, { headers: { Authorization: `Bearer ${gw.token}`, Accept: "text/event-stream" }, signal: client.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const reader = res.body!.getReader();
    let text = "";
    while (!text.includes('data: {"n":2}')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text.startsWith('id: 1\ndata: {"n":1}\n\nid: 2\ndata: {"n":2}\n\n')).toBe(true);
    client.abort();
    expect(await sseAborted).toStartWith("cancelled");
    // The exchange is over on both ends of the host connection.
    for (let i = 0; i < 200 && (pair!.front.openStreams > 0 || pair!.host.openStreams > 0); i++) await Bun.sleep(10);
    expect(pair!.front.openStreams).toBe(0);
    expect(pair!.host.openStreams).toBe(0);
  });

  test("revoking the credential that opened a relayed SSE stream ends it on the host too", async () => {
    await connectHost();
    const { id } = await remoteSession(HOST);
    let cancelled!: (how: string) => void;
    const ended = new Promise<string>((resolve) => (cancelled = resolve));
    answers.set(`GET /host/v1/sessions/${id}/proxy/session/events`, () =>
      new Response(
        new ReadableStream<string>({
          start(controller) {
            controller.enqueue("data: first\n\n");
          },
          cancel(reason) {
            cancelled(String(reason));
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      ),
    );
    const principal = await gw.ctx.principals.create(`sse-${Math.random().toString(36).slice(2, 8)}`);
    const pat = await gw.ctx.pats.create(principal.id, "sse");
    const res = await fetch(`${gw.url}/api/v1/sessions/${id}/proxy/session/events`, { headers: { Authorization: `Bearer ${pat.token}` } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: first\n\n");
    await gw.ctx.pats.revoke(pat.info.id);
    await ended;
    // The client's stream ends too (an error or the end, not more events).
    const next = await reader.read().catch(() => ({ done: true }));
    expect(next.done).toBe(true);
  });

  test("a stopped session's history and attachments are read on its host", async () => {
    await connectHost();
    const { id } = await remoteSession(HOST);
    answers.set(`GET /host/v1/sessions/${id}/history`, () => Response.json({ version: 1, session_id: id, checkpoint: "chk_host", total_items: 0, next_page: null, items: [] }));
    answers.set(`GET /host/v1/sessions/${id}/attachments/art_1`, () => Response.json({ error: "attachment_not_found", message: "not advertised" }, { status: 404 }));
    const a = api(gw);
    const page = await a.call("GET", `/api/v1/sessions/${id}/history?checkpoint=chk_host`);
    expect(page).toMatchObject({ status: 200, body: { session_id: id, checkpoint: "chk_host" } });
    const chunk = await a.call("GET", `/api/v1/sessions/${id}/attachments/art_1?checkpoint=chk_host&offset=0&length=10`);
    expect(chunk).toMatchObject({ status: 404, body: { error: "attachment_not_found" } });
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual([`GET /host/v1/sessions/${id}/history?checkpoint=chk_host`, `GET /host/v1/sessions/${id}/attachments/art_1?checkpoint=chk_host&offset=0&length=10`]);
    await disconnectHost();
    expect(await a.call("GET", `/api/v1/sessions/${id}/history`)).toMatchObject({ status: 503, body: { error: "host_offline" } });
  });

  test("a new session of the host's project is created on the host (the default policy, or host named), another host is refused", async () => {
    await connectHost();
    const { projectId } = await registerProject(gw);
    await sqlAll(gw.ctx.db, "UPDATE projects SET owner_host = ? WHERE id = ?", [HOST, projectId]);
    answers.set("POST /host/v1/sessions", () => Response.json(record("ses_new", "starting"), { status: 201 }));
    const a = api(gw);
    const byPolicy = await a.create(projectId);
    expect(byPolicy.status).toBe(201);
    expect(byPolicy.body).toEqual(record("ses_new", "starting"));
    const named = await a.call("POST", "/api/v1/sessions", { project_id: projectId, launch_mode: "worktree_backed", host: HOST });
    expect(named.status).toBe(201);
    expect(seen.map((s) => [s.method, s.path, JSON.parse(s.body)])).toEqual([
      ["POST", "/host/v1/sessions", { project_id: projectId, launch_mode: "project_direct" }],
      ["POST", "/host/v1/sessions", { project_id: projectId, launch_mode: "worktree_backed" }],
    ]);
    const elsewhere = await a.call("POST", "/api/v1/sessions", { project_id: projectId, launch_mode: "project_direct", host: gw.ctx.config.host_name });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.message).toContain(`project ${projectId} is on host ${HOST}`);
    expect(seen.length).toBe(2);
  });
});

describe("projects of a joined host", () => {
  test("registration with host checks the path on that host and makes the project its own; its hook status is read there", async () => {
    await connectHost();
    const { configName } = await registerProject(gw);
    const dir = `/srv/build-2/repo-${Math.random().toString(36).slice(2, 8)}`;
    answers.set("POST /host/v1/projects/check-path", () => Response.json({ path: dir }));
    const a = api(gw);
    const created = await a.call("POST", "/api/v1/projects", { path: `${dir}/./`, config_name: configName, host: HOST });
    expect(created.status).toBe(201);
    expect(created.body.path).toBe(dir);
    expect(created.body.owner_host).toBe(HOST);
    // The host's answer to the hook status was no hook status (the stand-in's default): none known.
    expect(created.body.hook_status).toEqual({ has_gateway_yaml: false, configured_hooks: [] });
    answers.set(`GET /host/v1/projects/${created.body.id}/hook-status`, () => Response.json({ has_gateway_yaml: true, configured_hooks: ["on_stop"] }));
    const read = await a.call("GET", `/api/v1/projects/${created.body.id}`);
    expect(read.body.hook_status).toEqual({ has_gateway_yaml: true, configured_hooks: ["on_stop"] });
    expect(seen.map((s) => [s.method, s.path])).toEqual([["POST", "/host/v1/projects/check-path"], ["GET", `/host/v1/projects/${created.body.id}/hook-status`], ["GET", `/host/v1/projects/${created.body.id}/hook-status`]]);
    expect(JSON.parse(seen[0]!.body)).toEqual({ path: `${dir}/./` });

    // The host's refusal is the answer; nothing is registered.
    answers.set("POST /host/v1/projects/check-path", () => Response.json({ error: "path_not_allowed", message: "path: \"/\" cannot be a project: the filesystem root" }, { status: 400 }));
    const refused = await a.call("POST", "/api/v1/projects", { path: "/", config_name: configName, host: HOST });
    expect(refused).toMatchObject({ status: 400, body: { error: "path_not_allowed", message: 'path: "/" cannot be a project: the filesystem root' } });

    await disconnectHost();
    const offline = await a.call("POST", "/api/v1/projects", { path: "/srv/x", config_name: configName, host: HOST });
    expect(offline).toMatchObject({ status: 503, body: { error: "host_offline" } });
    // Not reachable now: no hooks known, as for an unreadable gateway.yaml.
    expect((await a.call("GET", `/api/v1/projects/${created.body.id}`)).body.hook_status).toEqual({ has_gateway_yaml: false, configured_hooks: [] });
    const unknown = await a.call("POST", "/api/v1/projects", { path: "/srv/x", config_name: configName, host: "nowhere" });
    expect(unknown.status).toBe(422);
    expect(unknown.body.message).toContain("neither this gateway host");
  });

  test("the OpenAPI document has the optional host of a new session and a new project", async () => {
    const doc = (await (await fetch(`${gw.url}/api/v1/openapi.json`)).json()) as any;
    for (const path of ["/api/v1/sessions", "/api/v1/projects"]) {
      const schema = doc.paths[path].post.requestBody.content["application/json"].schema;
      expect([path, schema.properties.host.type]).toEqual([path, "string"]);
      expect(schema.required).not.toContain("host");
    }
    const empty = await api(gw).call("POST", "/api/v1/sessions", { project_id: "00000000", launch_mode: "project_direct", host: "" });
    expect(empty.status).toBe(422);
  });
});

describe("a host that is not connected", () => {
  test("its session's operations and proxy answer 503 host_offline naming the host; GET answers the record as stored", async () => {
    const { id, projectId } = await remoteSession(HOST);
    const a = api(gw);
    const message = `session ${id} is on host ${HOST}, which is not connected to this gateway front`;
    for (const [method, path] of [["POST", `/api/v1/sessions/${id}/stop`], ["POST", `/api/v1/sessions/${id}/resume`], ["DELETE", `/api/v1/sessions/${id}`], ["GET", `/api/v1/sessions/${id}/proxy/session`]] as const) {
      const r = await a.call(method, path);
      expect([method, path, r.status, r.body]).toEqual([method, path, 503, { error: "host_offline", message }]);
    }
    const read = await a.get(id);
    expect(read.status).toBe(200);
    expect(read.body.owner_host).toBe(HOST);
    const created = await a.create(projectId);
    expect(created.status).toBe(503);
    expect(created.body).toEqual({ error: "host_offline", message: `project ${projectId} is on host ${HOST}, which is not connected to this gateway front` });
  });

  test("a session of another front replica (not a joined host) stays 409 owned_by_other_host", async () => {
    const { id } = await remoteSession("front-b");
    const r = await api(gw).call("POST", `/api/v1/sessions/${id}/stop`);
    expect(r.status).toBe(409);
    expect(r.body.error).toBe("owned_by_other_host");
    expect(r.body.message).toContain("front-b");
    const proxied = await api(gw).call("GET", `/api/v1/sessions/${id}/proxy/session`);
    expect(proxied.status).toBe(409);
    expect(proxied.body.error).toBe("owned_by_other_host");
  });
});
