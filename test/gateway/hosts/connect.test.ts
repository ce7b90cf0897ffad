// A host agent's connection to a front (GET /api/v1/hosts/connect) with the mux's own dialer: admitted with
// its host credential and its own host name, refused (4004) when HELLO names another host, one connection per
// host and front (a newer one replaces the older), closed when its credential is revoked; presence: the host
// is online while connected and goes offline (host_online false, its running sessions stale in the fleet)
// once the connection is cut and 15 s pass on the front's clock.
import { afterEach, expect, test } from "bun:test";
import { dial } from "../../../src/gateway/hosts/mux/dial.ts";
import type { MuxConnection } from "../../../src/gateway/hosts/mux/connection.ts";
import { HOST_CLOSE } from "../../../src/gateway/hosts/connect-route.ts";
import { PRESENCE_TTL_MS } from "../../../src/gateway/hosts/presence.ts";
import { until } from "../../fakes/fake-clock.ts";
import { freshPgDatabase, pgTest } from "../../helpers/postgres.ts";
import { sharedPepper, startFleetGateway, type FleetGateway } from "../fleet/helpers.ts";

const opened: FleetGateway[] = [];
const connections: MuxConnection[] = [];
afterEach(async () => {
  for (const c of connections.splice(0)) c.close(1000, "test over");
  for (const g of opened.splice(0)) await g.stop();
});

async function front(): Promise<FleetGateway> {
  const f = await startFleetGateway({}, { extra: "host_name: front-a\n" });
  opened.push(f);
  return f;
}

async function join(f: FleetGateway, token: string, name = "build-1"): Promise<MuxConnection> {
  const connection = await dial(`${f.gw.url}/api/v1/hosts/connect`, { token, hello: { side: "host", name } });
  connections.push(connection);
  return connection;
}

/** A session's record as the session list gives it (read from the database, whichever host owns it). */
async function session(f: FleetGateway, id: string): Promise<any> {
  const res = await f.get("/api/v1/sessions");
  expect(res.status).toBe(200);
  return ((await res.json()) as any[]).find((s) => s.id === id);
}

async function catalogRow(f: FleetGateway, id: string): Promise<any> {
  const { body } = await f.json("/api/v1/catalog");
  return body.sessions.find((s: any) => s.session_id === id);
}

test("a host joins with its credential: the front holds its connection and answers through it", async () => {
  const f = await front();
  const { token } = await f.gw.ctx.hostCredentials.create("build-1");
  const host = await join(f, token);
  host.serve(async (req) => Response.json({ host: "build-1", path: new URL(req.url).pathname }));
  expect(host.protocol).toBe(1);
  await until(() => f.gw.ctx.hostLinks.get("build-1") !== undefined, "the front to hold the connection");
  const link = f.gw.ctx.hostLinks.get("build-1")!;
  expect(link.peer).toMatchObject({ side: "host", name: "build-1" });
  // The front reaches the host through the link (what front routing forwards over).
  const res = await link.fetch(new Request("http://host/host/v1/ping"));
  expect(await res.json()).toEqual({ host: "build-1", path: "/host/v1/ping" });
  // Its credential was used.
  const [credential] = await f.gw.ctx.hostCredentials.list();
  expect(credential!.lastUsedAt).not.toBeNull();
});

test("HELLO naming another host than the credential's is closed with 4004 and a reason; nothing is held", async () => {
  const f = await front();
  const { token } = await f.gw.ctx.hostCredentials.create("build-1");
  const impostor = await join(f, token, "build-2");
  const closed = await impostor.closed;
  expect(closed.code).toBe(HOST_CLOSE.WRONG_HOST);
  expect(closed.reason).toBe("this credential is for host build-1, not build-2");
  expect(f.gw.ctx.hostLinks.get("build-1")).toBeUndefined();
  expect(f.gw.ctx.hostLinks.get("build-2")).toBeUndefined();
  // Nor may a host claim the front's own name.
  const own = await f.gw.ctx.hostCredentials.create("front-a");
  expect((await (await join(f, own.token, "front-a")).closed).code).toBe(HOST_CLOSE.WRONG_HOST);
});

test("a second connection of the same host replaces the first, which is closed with a reason", async () => {
  const f = await front();
  const { token } = await f.gw.ctx.hostCredentials.create("build-1");
  const first = await join(f, token);
  await until(() => f.gw.ctx.hostLinks.get("build-1") !== undefined, "the first connection held");
  const held = f.gw.ctx.hostLinks.get("build-1");
  const changes: (string | undefined)[] = [];
  f.gw.ctx.hostLinks.onChange((name, c) => changes.push(c ? `${name} up` : `${name} down`));
  const second = await join(f, token);
  second.serve(async () => new Response("second"));
  expect(await first.closed).toEqual({ code: HOST_CLOSE.REPLACED, reason: "replaced by a newer connection of the same host" });
  await until(() => f.gw.ctx.hostLinks.get("build-1") !== held, "the second connection held");
  expect(await (await f.gw.ctx.hostLinks.get("build-1")!.fetch(new Request("http://host/x"))).text()).toBe("second");
  // The first one's close did not drop the second from the registry.
  expect(changes).toEqual(["build-1 up"]);
  expect(second.isClosed).toBe(false);
});

test("revoking the credential closes the host's connection", async () => {
  const f = await front();
  const { info, token } = await f.gw.ctx.hostCredentials.create("build-1");
  const host = await join(f, token);
  await until(() => f.gw.ctx.hostLinks.get("build-1") !== undefined, "the connection held");
  await f.gw.ctx.hostCredentials.revoke(info.id);
  await f.gw.ctx.streams.sweep();
  expect(await host.closed).toEqual({ code: HOST_CLOSE.REVOKED, reason: "the host credential was revoked" });
  await until(() => f.gw.ctx.hostLinks.get("build-1") === undefined, "the link dropped");
});

test("presence: online while connected; offline 15 s after the connection is cut (host_online false, fleet stale); never failed", async () => {
  const f = await front();
  await f.addProject("0000aaaa");
  await f.addSession("ses_remote", { state: "running", ownerHost: "build-1", daemonEpoch: "ep1", port: 1 });
  await f.addSession("ses_local", { state: "stopped", ownerHost: "front-a" });
  // Before the host ever joined: no hosts row, offline.
  expect(await session(f, "ses_remote")).toMatchObject({ owner_host: "build-1", host_online: false });
  // The front's own host is online while it runs.
  expect(await session(f, "ses_local")).toMatchObject({ owner_host: "front-a", host_online: true });

  const { token } = await f.gw.ctx.hostCredentials.create("build-1");
  const host = await join(f, token, "build-1");
  await until(() => f.gw.ctx.hostLinks.get("build-1") !== undefined, "the connection held");
  await f.gw.ctx.presence.refresh();
  expect(await session(f, "ses_remote")).toMatchObject({ host_online: true, state: "running" });
  expect(await catalogRow(f, "ses_remote")).toMatchObject({ host_online: true, state: "running" });
  // A fleet round announces the host coming online (the session was journaled offline when added).
  await f.fleet.tick();
  expect(f.fleet.journal.view("s:ses_remote")).toMatchObject({ session: { host_online: true } });
  const hostRow = (await f.gw.ctx.db.select().from(f.gw.ctx.db.t.hosts)).find((h) => h.name === "build-1")!;
  expect(hostRow).toMatchObject({ agentVersion: host.local.agent_version, protocol: 1, onlineUntil: f.gw.clock.now() + PRESENCE_TTL_MS });

  // Pushed forward while connected: 10 s later it is still online.
  f.gw.clock.advance(10_000);
  await f.gw.ctx.presence.refresh();
  f.gw.clock.advance(10_000);
  expect(await session(f, "ses_remote")).toMatchObject({ host_online: true });
  await f.gw.ctx.presence.refresh();

  host.close(1000, "cut");
  await until(() => f.gw.ctx.hostLinks.get("build-1") === undefined, "the front to see the connection go");
  await f.gw.ctx.presence.refresh();
  // Within its TTL it still counts as online (another front may hold it).
  f.gw.clock.advance(PRESENCE_TTL_MS - 1_000);
  expect(await session(f, "ses_remote")).toMatchObject({ host_online: true });
  f.gw.clock.advance(1_001);
  await f.gw.ctx.presence.refresh();
  expect(await session(f, "ses_remote")).toMatchObject({ host_online: false, state: "running" });
  expect(await session(f, "ses_local")).toMatchObject({ host_online: true });

  // The fleet shows it stale, and a round announces the change once.
  const from = f.fleet.journal.position;
  await f.fleet.tick();
  expect(await catalogRow(f, "ses_remote")).toMatchObject({ state: "running", host_online: false, stale: true });
  const announced = f.fleet.journal.view("s:ses_remote");
  expect(announced).toMatchObject({ kind: "session", session: { host_online: false, stale: true, state: "running" } });
  expect(f.fleet.journal.position).toBeGreaterThan(from);
  const position = f.fleet.journal.position;
  await f.fleet.tick();
  expect(f.fleet.journal.position).toBe(position);
  // Never failed by the front: the row is as the host left it.
  expect(await session(f, "ses_remote")).toMatchObject({ state: "running" });

  // Back again: online, announced.
  const again = await join(f, token, "build-1");
  await until(() => f.gw.ctx.hostLinks.get("build-1") !== undefined, "the connection held again");
  // The connection's own announcement (no refresh here) is a database write that follows the link.
  for (const end = Date.now() + 15_000; !(await session(f, "ses_remote")).host_online && Date.now() < end; ) await Bun.sleep(10);
  expect(await session(f, "ses_remote")).toMatchObject({ host_online: true });
  await f.fleet.tick();
  expect(f.fleet.journal.view("s:ses_remote")).toMatchObject({ session: { host_online: true } });
  again.close(1000, "done");
});

pgTest("a front's own host is online while it runs: a replica sees its sessions go offline and stale 15 s after it stopped", async () => {
  const database = await freshPgDatabase();
  const auth = sharedPepper();
  const a = await startFleetGateway({}, { database, auth, principal: "fleet-a", extra: "host_name: front-a\n" });
  const b = await startFleetGateway({}, { database, auth, principal: "fleet-b", extra: "host_name: front-b\n" });
  opened.push(b);
  await a.addProject("0000aaaa");
  await a.addSession("ses_a", { state: "running", ownerHost: "front-a", daemonEpoch: "ep1", port: 1 });
  await a.gw.ctx.presence.refresh();
  expect(await session(b, "ses_a")).toMatchObject({ owner_host: "front-a", host_online: true });
  // A front's own row has no host protocol (no connection): that tells fronts from joined hosts.
  const row = (await b.gw.ctx.db.select().from(b.gw.ctx.db.t.hosts)).find((h) => h.name === "front-a")!;
  expect(row).toMatchObject({ protocol: null, onlineUntil: a.gw.clock.now() + PRESENCE_TTL_MS });

  await a.stop();
  b.gw.clock.advance(PRESENCE_TTL_MS - 1);
  expect(await session(b, "ses_a")).toMatchObject({ host_online: true });
  b.gw.clock.advance(2);
  expect(await session(b, "ses_a")).toMatchObject({ host_online: false, state: "running" });
  await b.fleet.tick();
  expect(await catalogRow(b, "ses_a")).toMatchObject({ state: "running", host_online: false, stale: true });
  expect(b.fleet.journal.view("s:ses_a")).toMatchObject({ session: { host_online: false, stale: true } });
  // b never touches another host's session: still running as a left it.
  expect(await session(b, "ses_a")).toMatchObject({ state: "running" });
});
