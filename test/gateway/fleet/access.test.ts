// Fleet catalog, fleet events, stopped history and attachments need the `machine` scope
// (client-protocol.md, Authentication): a `project`-only token and a daemon credential get 403
// insufficient_scope before any fleet work happens; no token gets the gateway's identical 401.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { serviceCredentialVerifier } from "../../../src/gateway/auth/bearer.ts";
import { basic, call, confidentialClient } from "../oauth-helpers.ts";
import { type FleetGateway, startFleetGateway } from "./helpers.ts";

let f: FleetGateway;
let projectToken: string;
const daemonToken = `dsc_genfleet.${"s".repeat(24)}`;

beforeAll(async () => {
  f = await startFleetGateway();
  await f.addProject("00000001");
  await f.addSession("ses_fleet", { projectId: "00000001", state: "running" });
  const now = f.gw.clock.now();
  const { db } = f.gw.ctx;
  await db.update(db.t.sessions).set({ currentGenerationId: "genfleet" }).where(eq(db.t.sessions.id, "ses_fleet"));
  await db.insert(db.t.serviceCredentials).values({ generationId: "genfleet", sessionId: "ses_fleet", state: "active", verifier: serviceCredentialVerifier(f.gw.ctx.pepper, daemonToken), createdAt: now });
  const [id, secret] = await confidentialClient(f.gw, ["project"]);
  const issued = await call(f.gw, "token", { grant_type: "client_credentials" }, { Authorization: basic(id, secret) });
  expect(issued.body.scope).toBe("project");
  projectToken = issued.body.access_token;
});
afterAll(() => f.stop());

const paths = ["/api/v1/catalog", "/api/v1/events", "/api/v1/sessions/ses_fleet/history", "/api/v1/sessions/ses_fleet/attachments/att_x?checkpoint=c"];

test("a project-only token and a daemon credential (even for its own session) get 403 on every fleet route", async () => {
  for (const token of [projectToken, daemonToken]) {
    for (const path of paths) {
      const res = await fetch(`${f.gw.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });
      expect([path, res.status, (await res.json()).error]).toEqual([path, 403, "insufficient_scope"]);
    }
  }
  expect(f.fleet.snapshots.size).toBe(0);
  expect(f.fleet.openStreams).toBe(0);
});

test("no token: 401 with the byte-identical body on every fleet route", async () => {
  for (const path of paths) {
    const res = await fetch(`${f.gw.url}${path}`);
    expect([path, res.status, await res.text()]).toEqual([path, 401, '{"error":"unauthorized"}']);
  }
});

test("a machine token reaches them", async () => {
  expect((await f.get("/api/v1/catalog")).status).toBe(200);
  expect((await f.json("/api/v1/sessions/ses_fleet/history")).body.code).toBe("history_requires_stopped");
});
