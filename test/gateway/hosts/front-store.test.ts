// The session store a front serves to one joined host over its connection (`POST /front/v1/store/<method>`,
// hosts/front-store.ts), exercised from the host's end of a real mux: every call is held to that host's own
// rows, an insert becomes the host's, a host reads only the projects and configurations its sessions use,
// and the database store's errors keep their status and body.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { frontStoreHandler } from "../../../src/gateway/hosts/front-store.ts";
import { STORE_PATH } from "../../../src/gateway/sessions/store.ts";
import { CONNECT_PATH, dial } from "../../../src/gateway/hosts/mux/dial.ts";
import { sqlAll, sqlGet, startTestGateway, type TestGateway } from "../helpers.ts";
import { registerProject } from "../sessions/helpers.ts";
import { muxPair, type MuxPair } from "./mux-pair.ts";

const HOST = "build-2";
let gw: TestGateway;
let pair: MuxPair;

/** One store call from the host's end: status and JSON body. */
async function call(method: string, ...args: unknown[]): Promise<{ status: number; body: any }> {
  const res = await pair.host.fetch(new Request(`http://front${STORE_PATH}${method}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ args }) }));
  return { status: res.status, body: await res.json() };
}

async function projectOf(owner: string) {
  const project = await registerProject(gw);
  await sqlAll(gw.ctx.db, "UPDATE projects SET owner_host = ? WHERE id = ?", [owner, project.projectId]);
  return project;
}

function newRow(projectId: string, extra: Record<string, unknown> = {}) {
  const id = `ses_${Math.random().toString(36).slice(2, 12)}`;
  return { id, projectId, launchMode: "project_direct", sessionDir: `/srv/agent/sessions/${id}`, worktreePath: null, worktreeBranch: null, ...extra };
}

beforeAll(async () => {
  gw = await startTestGateway("services:\n  snap:\n    enabled: true\n    capabilities:\n      read:\n        enabled: true\n        modes: [sync]\n");
  pair = await muxPair({ host: { name: HOST } });
  pair.front.serve(frontStoreHandler(gw.ctx, HOST));
});

afterAll(async () => {
  await pair.stop();
  await gw.stop();
});

describe("the front's store for one host", () => {
  test("an insert is the host's whatever the row says; the host lists and reads only its own rows", async () => {
    const { projectId } = await projectOf(HOST);
    const inserted = await call("insert", newRow(projectId, { ownerHost: "front-a" }));
    expect(inserted.status).toBe(200);
    expect(inserted.body.result.ownerHost).toBe(HOST);
    expect(inserted.body.result.state).toBe("starting");
    expect((await sqlGet<{ owner_host: string }>(gw.ctx.db, "SELECT owner_host FROM sessions WHERE id = ?", [inserted.body.result.id]))!.owner_host).toBe(HOST);

    const other = await projectOf("front-a");
    const theirs = newRow(other.projectId);
    await gw.ctx.sessions.store.insert({ ...theirs, launchMode: "project_direct", ownerHost: "front-a" });
    const listed = await call("sessions");
    expect(listed.body.result.map((r: { id: string }) => r.id)).toContain(inserted.body.result.id);
    expect(listed.body.result.every((r: { ownerHost: string }) => r.ownerHost === HOST)).toBe(true);
    const read = await call("session", theirs.id);
    expect(read.status).toBe(409);
    expect(read.body).toEqual({ error: "owned_by_other_host", message: expect.stringContaining("front-a") });
    // None: no result (undefined).
    expect(await call("session", "ses_none")).toEqual({ status: 200, body: {} });
  });

  test("another host's row can be neither changed, moved, removed nor given a credential", async () => {
    const other = await projectOf("front-a");
    const theirs = newRow(other.projectId);
    await gw.ctx.sessions.store.insert({ ...theirs, launchMode: "project_direct", ownerHost: "front-a" });
    for (const [method, args] of [
      ["update", [theirs.id, { pid: 1 }]],
      ["transition", [theirs.id, ["starting"], "failed", "spawn_failed", "x", {}]],
      ["remove", [theirs.id]],
      ["view", [{ ...theirs, ownerHost: HOST }]],
      ["issueCredential", [theirs.id, []]],
      ["invalidateCredentials", [theirs.id, "session_stopped"]],
    ] as const) {
      const r = await call(method, ...args);
      expect([method, r.status, r.body.error]).toEqual([method, 409, "owned_by_other_host"]);
    }
    const row = await sqlGet<{ state: string; pid: number | null }>(gw.ctx.db, "SELECT state, pid FROM sessions WHERE id = ?", [theirs.id]);
    expect(row).toEqual({ state: "starting", pid: null });
  });

  test("a host sets only its daemon's fields; the owner, project and generation are not its to change", async () => {
    const { projectId } = await projectOf(HOST);
    const row = (await call("insert", newRow(projectId))).body.result;
    expect((await call("update", row.id, { pid: 4242, pidStartTicks: "99", port: 41000 })).status).toBe(200);
    for (const field of ["ownerHost", "projectId", "currentGenerationId", "state"]) {
      const r = await call("update", row.id, { [field]: "front-a" });
      expect([field, r.status, r.body.error]).toEqual([field, 422, "validation_failed"]);
    }
    expect((await call("update", row.id, { port: "41000" })).status).toBe(422);
    const stored = await sqlGet<Record<string, unknown>>(gw.ctx.db, "SELECT pid, port, owner_host, project_id FROM sessions WHERE id = ?", [row.id]);
    expect(stored).toEqual({ pid: 4242, port: 41000, owner_host: HOST, project_id: projectId });
  });

  test("transition is a compare-and-set on the front; view is the record as stored", async () => {
    const { projectId } = await projectOf(HOST);
    const row = (await call("insert", newRow(projectId))).body.result;
    expect((await call("transition", row.id, ["running"], "stopped", "stop")).body).toEqual({ result: false });
    expect((await call("transition", row.id, ["starting"], "running", "daemon_healthy", undefined, { port: 41001, daemonEpoch: "ep1" })).body).toEqual({ result: true });
    const view = (await call("view", { ...row, state: "failed" })).body.result;
    expect(view.state).toBe("running");
    expect(view.port).toBe(41001);
    expect(view.transitions.map((t: { to: string }) => t.to)).toEqual(["starting", "running"]);
    const bad = await call("transition", row.id, ["running"], "exploded", "stop");
    expect(bad.status).toBe(422);
  });

  test("a credential carries the front's service catalog, whatever the host asks for; the token is the front's", async () => {
    const { projectId } = await projectOf(HOST);
    const row = (await call("insert", newRow(projectId))).body.result;
    const issued = (await call("issueCredential", row.id, [{ name: "everything", capabilities: [{ name: "all", modes: ["sync"] }] }])).body.result;
    expect(issued.token).toStartWith(`dsc_${issued.generationId}.`);
    const stored = await sqlGet<{ capabilities: unknown }>(gw.ctx.db, "SELECT capabilities FROM service_credentials WHERE generation_id = ?", [issued.generationId]);
    const caps = typeof stored!.capabilities === "string" ? JSON.parse(stored!.capabilities) : stored!.capabilities;
    expect(caps).toEqual([{ name: "snap", capabilities: [{ name: "read", modes: ["sync"] }] }]);
  });

  test("projects and configurations: only those of the host's projects or sessions", async () => {
    const mine = await projectOf(HOST);
    expect((await call("project", mine.projectId)).body.result.id).toBe(mine.projectId);
    const config = (await call("launchConfig", mine.configName)).body.result;
    expect(config.format).toBe("yaml");
    expect(config.content).toContain("providers:");
    expect(config.preRunScript).toBeNull();

    const other = await projectOf("front-a");
    expect((await call("project", other.projectId)).status).toBe(409);
    const refused = await call("launchConfig", other.configName);
    expect(refused.status).toBe(404);
    expect(refused.body.message).toContain(`no project of host ${HOST} uses configuration`);
    // A session of the host on that project makes both readable.
    await call("insert", newRow(other.projectId));
    expect((await call("project", other.projectId)).body.result.id).toBe(other.projectId);
    expect((await call("launchConfig", other.configName)).status).toBe(200);
  });

  test("announce records the host's live daemons on its rows; one of another host's refuses the whole announcement", async () => {
    const { projectId } = await projectOf(HOST);
    const row = (await call("insert", newRow(projectId))).body.result;
    const other = await projectOf("front-a");
    const theirs = newRow(other.projectId);
    await gw.ctx.sessions.store.insert({ ...theirs, launchMode: "project_direct", ownerHost: "front-a" });
    const daemon = { sessionId: row.id, pid: 5151, startTicks: "777", port: 42000, daemonEpoch: "ep9" };
    const refused = await call("announce", [daemon, { ...daemon, sessionId: theirs.id }]);
    expect(refused.status).toBe(409);
    expect(await sqlGet(gw.ctx.db, "SELECT pid FROM sessions WHERE id = ?", [row.id])).toEqual({ pid: null });
    expect((await call("announce", [daemon, { ...daemon, sessionId: "ses_gone" }])).status).toBe(200);
    expect(await sqlGet(gw.ctx.db, "SELECT pid, pid_start_ticks, port, daemon_epoch FROM sessions WHERE id = ?", [row.id])).toEqual({ pid: 5151, pid_start_ticks: "777", port: 42000, daemon_epoch: "ep9" });
    expect((await call("announce", [{ ...daemon, port: null }])).status).toBe(422);
  });

  test("unknown methods are 404, other verbs 405, bad bodies 400/422", async () => {
    const unknown = await pair.host.fetch(new Request(`http://front${STORE_PATH}claimRows`, { method: "POST", body: JSON.stringify({ args: [] }) }));
    expect(unknown.status).toBe(404);
    expect((await pair.host.fetch(new Request(`http://front/api/v1/sessions`))).status).toBe(404);
    expect((await pair.host.fetch(new Request(`http://front${STORE_PATH}sessions`))).status).toBe(405);
    expect((await pair.host.fetch(new Request(`http://front${STORE_PATH}sessions`, { method: "POST", body: "{" }))).status).toBe(400);
    expect((await pair.host.fetch(new Request(`http://front${STORE_PATH}sessions`, { method: "POST", body: "{}" }))).status).toBe(422);
    const missing = await call("view", { id: "ses_none" });
    expect(missing).toEqual({ status: 404, body: { error: "not_found", message: "no session ses_none" } });
  });

  test("a real front serves its store and its services routes on a host's connection through the connect route", async () => {
    const { token } = await gw.ctx.hostCredentials.create(HOST);
    const host = await dial(`${gw.url}${CONNECT_PATH}`, { token, hello: { side: "host", name: HOST } });
    try {
      const { projectId } = await projectOf(HOST);
      const post = (method: string, ...args: unknown[]) => host.fetch(new Request(`http://front${STORE_PATH}${method}`, { method: "POST", body: JSON.stringify({ args }) }));
      const row = ((await (await post("insert", newRow(projectId))).json()) as any).result;
      expect(row.ownerHost).toBe(HOST);
      const issued = ((await (await post("issueCredential", row.id, [])).json()) as any).result;
      // A daemon of the host reaches the services routes with its own credential, checked by the front's edge.
      const caps = await host.fetch(new Request("http://front/api/v1/services/capabilities", { headers: { authorization: `Bearer ${issued.token}` } }));
      expect(caps.status).toBe(200);
      expect(await caps.json()).toEqual({ services: [{ name: "snap", capabilities: [{ name: "read", modes: ["sync"] }] }] });
      const anonymous = await host.fetch(new Request("http://front/api/v1/services/capabilities"));
      expect(anonymous.status).toBe(401);
      // Nothing else of the API is reachable on the connection.
      expect((await host.fetch(new Request("http://front/api/v1/sessions", { headers: { authorization: `Bearer ${issued.token}` } }))).status).toBe(404);
    } finally {
      host.close();
    }
  });
});
