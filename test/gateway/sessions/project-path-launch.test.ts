// A project registered before the path rules (or whose directory was since replaced by a link to a system
// directory) does not start a daemon there: the session fails and its record says why.
import { sqlAll } from "../helpers.ts";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { renameSync, symlinkSync } from "node:fs";
import { api, FAKE_DAEMON_COMMAND, registerProject, sessionGateway, stopGateway } from "./helpers.ts";

let gw: Awaited<ReturnType<typeof sessionGateway>>;
let a: ReturnType<typeof api>;

beforeAll(async () => {
  gw = await sessionGateway();
  gw.ctx.sessions.daemonCommand = FAKE_DAEMON_COMMAND;
  a = api(gw);
});
afterAll(() => stopGateway(gw));

test("a project at /etc (an older registration): the session fails naming the path and why; no daemon starts", async () => {
  const { projectId } = await registerProject(gw);
  await sqlAll(gw.ctx.db, "UPDATE projects SET path = '/etc' WHERE id = ?", [projectId]);
  const created = await a.create(projectId);
  expect(created.status).toBe(201);
  const settled = await a.settled(created.body.id);
  expect(settled.state).toBe("failed");
  expect(settled.transitions.at(-1)!.detail).toBe(`project ${projectId}: path: "/etc" cannot be a project: it is (or is inside) a system directory`);
  expect((settled as unknown as { pid: number | null }).pid).toBeNull();
});

test("a project directory replaced by a link to /etc after registration is refused the same way", async () => {
  const { projectId, path } = await registerProject(gw);
  renameSync(path, `${path}-moved`);
  symlinkSync("/etc", path);
  const settled = await a.settled((await a.create(projectId)).body.id);
  expect(settled.state).toBe("failed");
  expect(settled.transitions.at(-1)!.detail).toBe(`project ${projectId}: path: ${JSON.stringify(path)} ("/etc") cannot be a project: it is (or is inside) a system directory`);
});
