// The fleet over a real session: the supervisor spawns a real `agent daemon` (scripted provider), the
// fleet announces each state, the observer reads the daemon's /sync/summary with the credential in its
// session dir, a prompt with an image runs through the proxy, the session stops, and its history and
// attachment are read through the gateway from the stopped store.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { DaemonClient } from "../../../src/client/daemon-client.ts";
import { installFleet, type FleetService } from "../../../src/gateway/fleet/service.ts";
import type { SyncRecord } from "../../../src/protocol/sync-record.ts";
import { api, deleteSessions, registerProject, sessionGateway, until } from "../sessions/helpers.ts";
import { FakeScheduler } from "./helpers.ts";

const PNG = Buffer.from(Array.from({ length: 200 }, (_, i) => (i * 7) % 256));
let gw: Awaited<ReturnType<typeof sessionGateway>>;
let fleet: FleetService;
beforeAll(async () => {
  gw = await sessionGateway();
  fleet = installFleet(gw.ctx, { scheduler: new FakeScheduler() });
  await fleet.ready;
});
afterAll(async () => {
  await deleteSessions(gw);
  await gw.stop();
});

test("create, observe, prompt, stop, then history and attachment through the gateway", async () => {
  const a = api(gw);
  const cursor = (await a.call("GET", "/api/v1/catalog")).body.cursor;
  const project = await registerProject(gw);
  const id = (await a.create(project.projectId)).body.id as string;
  expect((await a.settled(id)).state).toBe("running");

  await fleet.tick();
  const row = (await a.call("GET", "/api/v1/catalog")).body.sessions.find((s: any) => s.session_id === id);
  expect(row).toMatchObject({ state: "running", stale: false, summary: { version: 1, busy: false, attention: false } });
  expect(row.summary.daemon_epoch).toBe(row.daemon_epoch);

  const client = new DaemonClient({ url: `${gw.url}/api/v1/sessions/${id}/proxy`, token: gw.token, retryDelayMs: 20 });
  const view: SyncRecord[] = [];
  const follow = new AbortController();
  const following = client.follow({ onRecords: (records) => void view.push(...records) }, follow.signal);
  const res = await fetch(`${gw.url}/api/v1/sessions/${id}/proxy/prompt`, {
    method: "POST",
    headers: { Authorization: `Bearer ${gw.token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ text: "what is in this picture", images: [{ media_type: "image/png", data_base64: PNG.toString("base64") }] }),
  });
  expect(res.status).toBeLessThan(300);
  await until(() => view.some((r) => r.type === "turn_completed"), "the turn through the proxy");
  follow.abort();
  await following;

  expect((await a.call("POST", `/api/v1/sessions/${id}/stop`)).body.state).toBe("stopped");

  // The stream from the catalog's cursor tells the story in order.
  const events = fleet.journal.after(await fleet.journal.resolve(cursor)).map((e) => JSON.parse(e.text));
  const states = events.filter((e) => e.type === "session_upserted" && e.session.session_id === id).map((e) => e.session.state);
  expect(states[0]).toBe("starting");
  expect(states).toContain("running");
  expect(states.at(-1)).toBe("stopped");

  const history = await a.call("GET", `/api/v1/sessions/${id}/history`);
  expect(history.status).toBe(200);
  const kinds = history.body.items.map((i: any) => i.kind);
  expect(kinds).toContain("user_message");
  expect(kinds).toContain("turn_completed");
  expect(JSON.stringify(history.body.items)).toContain("hello from the daemon");
  const image = history.body.items.flatMap((i: any) => (i.kind === "user_message" ? i.payload.content : [])).find((c: any) => c.type === "image");
  expect(image).toMatchObject({ media_type: "image/png", unavailable: false });
  const chunk = await a.call("GET", `/api/v1/sessions/${id}/attachments/${image.artifact_id}?checkpoint=${encodeURIComponent(history.body.checkpoint)}`);
  expect(chunk.body).toMatchObject({ artifact_id: image.artifact_id, total_length: PNG.length, offset: 0 });
  expect(Buffer.from(chunk.body.data_base64, "base64").equals(PNG)).toBe(true);

  // Resumed: the session runs again, so its stopped history is not served.
  expect((await a.call("POST", `/api/v1/sessions/${id}/resume`)).body.state).toBe("running");
  expect((await a.call("GET", `/api/v1/sessions/${id}/history`)).body.code).toBe("history_requires_stopped");
}, 60_000);
