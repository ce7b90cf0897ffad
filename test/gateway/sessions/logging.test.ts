// The gateway logs each session's life as structured events: created, running (the launch, with pid,
// port and epoch), stopped, reaped (deleted); a failed start is an error event with its reason. Real
// spawned daemons.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Logger } from "../../../src/gateway/context.ts";
import { api, registerProject, sessionGateway, stopGateway, until } from "./helpers.ts";

type Event = { level: string; event: string; fields: Record<string, unknown> };
let gw: Awaited<ReturnType<typeof sessionGateway>>;
const events: Event[] = [];

beforeAll(async () => {
  gw = await sessionGateway();
  const capture: Logger = { info() {}, warn() {}, error() {}, event: (level, event, fields) => void events.push({ level, event, fields }) };
  gw.ctx.logger = capture;
});
afterAll(async () => {
  await stopGateway(gw);
});

test("create, launch, stop and delete are logged; a launch that fails is an error with its reason", async () => {
  const a = api(gw);
  const project = await registerProject(gw);
  const created = await a.create(project.projectId);
  const id = created.body.id as string;
  const running = await a.settled(id);
  expect(running.state).toBe("running");
  expect((await a.call("POST", `/api/v1/sessions/${id}/stop`)).status).toBe(200);
  expect((await a.call("DELETE", `/api/v1/sessions/${id}`)).status).toBe(204);
  const mine = events.filter((e) => e.fields.session === id);
  expect(mine.map((e) => e.event)).toEqual(["session.created", "session.running", "session.stopped", "session.cleanup_pending", "session.reaped"]);
  expect(mine[1]).toMatchObject({ level: "info", fields: { from: "starting", trigger: "daemon_healthy", pid: running.pid, port: expect.any(Number), daemon_epoch: expect.any(String) } });

  // A daemon that cannot start: an error event naming why.
  gw.ctx.sessions.daemonCommand = ["/bin/false"];
  const broken = await a.create(project.projectId);
  const failed = await a.settled(broken.body.id as string);
  expect(failed.state).toBe("failed");
  // Logged once the move is announced to fleet observation, just after GET can read it.
  const failureOf = () => events.find((e) => e.fields.session === broken.body.id && e.event === "session.failed");
  await until(() => failureOf() !== undefined, "the failure's log event");
  const failure = failureOf()!;
  expect(failure.level).toBe("error");
  expect(failure.fields).toMatchObject({ from: "starting", trigger: "spawn_failed", detail: expect.any(String) });
  await a.call("DELETE", `/api/v1/sessions/${broken.body.id}`);
}, 60_000);
