// Full session lifecycle against real spawned daemons on the scripted provider: create (both launch
// modes), running, a prompt driven through the proxy with the daemon client (SSE replay included), stop,
// resume with a new epoch and a new credential generation, delete (worktree removed).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { DaemonClient } from "../../../src/client/daemon-client.ts";
import type { SyncRecord } from "../../../src/protocol/sync-record.ts";
import { api, deleteSessions, registerProject, sessionGateway, stopGateway, until } from "./helpers.ts";

let gw: Awaited<ReturnType<typeof sessionGateway>>;
beforeAll(async () => {
  gw = await sessionGateway();
});
afterAll(async () => {
  await deleteSessions(gw);
  await stopGateway(gw);
});

/** The streamed assistant text of the records. */
function textOf(records: SyncRecord[]): string {
  return records.map((r) => (r.type === "part_delta" ? String((r as { delta?: unknown }).delta ?? "") : "")).join("");
}

describe("session lifecycle", () => {
  test("project_direct: starting -> running, prompt through the proxy, stop, resume with a new epoch, delete", async () => {
    const a = api(gw);
    const project = await registerProject(gw);
    const created = await a.create(project.projectId);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ project_id: project.projectId, launch_mode: "project_direct", state: "starting", worktree: null });
    const id = created.body.id as string;
    expect(id).toMatch(/^ses_[0-9a-z]{26}$/);

    const running = await a.settled(id);
    expect(running.state).toBe("running");
    expect(running.transitions.map((t) => [t.from, t.to, t.trigger])).toEqual([
      [null, "starting", "create"],
      ["starting", "running", "daemon_healthy"],
    ]);
    // The daemon read and deleted its bootstrap file, then checked in: its credential is active.
    const sessionDir = join(gw.ctx.dataDir, "sessions", id);
    expect(readdirSync(sessionDir).filter((f) => f.startsWith("bootstrap-"))).toEqual([]);
    await until(async () => (await a.get(id)).body.service_credentials[0]?.state === "active", "the credential to become active");
    const cred = (await a.get(id)).body.service_credentials;
    expect(cred).toHaveLength(1);
    expect(Object.keys(cred[0]).sort()).toEqual(["activated_at", "created_at", "generation_id", "invalidated_at", "invalidation_cause", "last_used_at", "state"]);
    expect(JSON.stringify((await a.get(id)).body)).not.toMatch(/dsc_|verifier/);

    // Drive the session through the proxy with the gateway token, as a remote client does.
    const proxied = `${gw.url}/api/v1/sessions/${id}/proxy`;
    const client = new DaemonClient({ url: proxied, token: gw.token, retryDelayMs: 20 });
    const view: SyncRecord[] = [];
    const follow = new AbortController();
    const following = client.follow({ onRecords: (records) => void view.push(...records) }, follow.signal);
    const accepted = await client.prompt("hi there");
    expect(accepted.operation?.status).toMatch(/admitted|in_progress|completed/);
    await until(() => view.some((r) => r.type === "turn_completed"), "the turn through the proxy");
    expect(textOf(view)).toContain("hello from the daemon");
    const firstEpoch = client.epoch;
    expect(firstEpoch).toBe(running.daemon_epoch);
    follow.abort();
    await following;

    // SSE replay through the proxy: a new client replays the whole journal from the origin.
    const replay = new DaemonClient({ url: proxied, token: gw.token });
    const snap = await replay.sync();
    const res = await fetch(`${proxied}/events?after=${encodeURIComponent(snap.origin_cursor)}`, { headers: { Authorization: `Bearer ${gw.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const reader = res.body!.getReader();
    let text = "";
    while (!text.includes("turn_completed")) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    // The daemon merges a part's deltas committed together (decisions-daemon 34): the word is inside one.
    expect(text).toMatch(/"delta":"[^"]*daemon/);

    const stopped = await a.call("POST", `/api/v1/sessions/${id}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body.state).toBe("stopped");
    expect(stopped.body.service_credentials[0]).toMatchObject({ state: "invalidated", invalidation_cause: "session_stopped" });
    expect(process.kill.bind(process, running.pid!, 0)).toThrow();
    expect((await a.call("POST", `/api/v1/sessions/${id}/stop`)).status).toBe(409);
    const notRunning = await a.call("GET", `/api/v1/sessions/${id}/proxy/sync`);
    expect(notRunning.status).toBe(503);
    expect(notRunning.body).toMatchObject({ state: "stopped" });

    const resumed = await a.call("POST", `/api/v1/sessions/${id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body.state).toBe("running");
    expect(resumed.body.daemon_epoch).not.toBe(firstEpoch);
    expect(resumed.body.transitions.at(-1)).toMatchObject({ from: "stopped", to: "running", trigger: "resume" });
    expect(resumed.body.service_credentials.map((c: any) => c.state)).toEqual(["invalidated", expect.stringMatching(/pending|active/)]);
    expect((await a.call("POST", `/api/v1/sessions/${id}/resume`)).status).toBe(409);
    // The conversation survived: the resumed daemon serves the same session through the proxy.
    const after = new DaemonClient({ url: proxied, token: gw.token });
    expect((await after.sync()).daemon_epoch).toBe(resumed.body.daemon_epoch);

    expect(existsSync(join(sessionDir, "credential.json"))).toBe(true);
    const deleted = await a.call("DELETE", `/api/v1/sessions/${id}`);
    expect(deleted.status).toBe(204);
    // Its directory (store with the transcript, credential.json, logs) is gone with it.
    expect(existsSync(sessionDir)).toBe(false);
    expect((await a.get(id)).status).toBe(404);
    expect((await a.call("GET", `/api/v1/sessions/${id}/proxy/sync`)).status).toBe(404);
    expect(process.kill.bind(process, resumed.body.pid, 0)).toThrow();
    // Every management action is in the audit log, with the caller.
    const audited = (await gw.ctx.audit.list()).filter((e) => e.target === id).map((e) => e.action);
    expect(audited.sort()).toEqual(["session.create", "session.delete", "session.resume", "session.stop"]);
  }, 60_000);

  test("worktree_backed: the daemon runs in a new git worktree, which DELETE removes", async () => {
    const a = api(gw);
    const project = await registerProject(gw);
    const created = await a.create(project.projectId, "worktree_backed");
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const worktree = created.body.worktree as { path: string; branch: string };
    expect(worktree.branch).toBe(`agent/${id}`);
    expect(existsSync(join(worktree.path, "README.md"))).toBe(true);
    expect((await a.settled(id)).state).toBe("running");
    const list = Bun.spawnSync(["git", "worktree", "list"], { cwd: project.path }).stdout.toString();
    expect(list).toContain(worktree.path);

    expect((await a.call("DELETE", `/api/v1/sessions/${id}`)).status).toBe(204);
    expect(existsSync(worktree.path)).toBe(false);
    expect(Bun.spawnSync(["git", "worktree", "list"], { cwd: project.path }).stdout.toString()).not.toContain(worktree.path);
  }, 60_000);

  test("create: 422 for an invalid launch mode, 404 for an unknown project; pre-run.sh runs first", async () => {
    const a = api(gw);
    const bad = await a.create("00000000", "container");
    expect(bad.status).toBe(422);
    expect(bad.body.message).toContain("project_direct, worktree_backed");
    expect((await a.create("deadbeef")).status).toBe(404);

    const project = await registerProject(gw, { preRun: "echo prepared > prepared.txt\n" });
    const id = (await a.create(project.projectId)).body.id;
    expect((await a.settled(id)).state).toBe("running");
    expect(existsSync(join(project.path, "prepared.txt"))).toBe(true);

    const failing = await registerProject(gw, { preRun: "echo cannot prepare >&2; exit 3\n" });
    const fid = (await a.create(failing.projectId)).body.id;
    const failed = await a.settled(fid);
    expect(failed.state).toBe("failed");
    expect(failed.transitions.at(-1)).toMatchObject({ from: "starting", to: "failed", trigger: "spawn_failed" });
    expect(failed.transitions.at(-1)!.detail).toContain("pre-run.sh exited with status 3: cannot prepare");
  }, 60_000);
});
