// A gateway session whose daemon is idle for its configuration's daemon.idle_exit_secs: the daemon stops
// the session and exits (the process is gone), the record says `stopped` by `idle_exit` (not `failed`),
// and the next proxied request resumes it (new daemon, new epoch) without the client noticing. A session
// stopped on request is not resumed by a proxied request (503 as before).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { api, deleteSessions, registerProject, sessionGateway, stopGateway } from "./helpers.ts";
import { processExists } from "../../helpers/processes.ts";

let gw: Awaited<ReturnType<typeof sessionGateway>>;
beforeAll(async () => {
  gw = await sessionGateway();
});
afterAll(async () => {
  await deleteSessions(gw);
  await stopGateway(gw);
}, 60_000);

async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await Bun.sleep(100)) if (await cond()) return;
  throw new Error(`timed out waiting for ${what}`);
}

function idleConfig(): string {
  const script = join(mkdtempSync(join(tmpdir(), "gw-idle-")), "script.yaml");
  writeFileSync(script, "responses:\n  - text: hello from the daemon\n  - text: second answer\n");
  return `providers:\n  offline: { kind: { type: catalog, name: test }, url: ${script} }\ndefault_permission_matcher: bypass\ndaemon:\n  idle_exit_secs: 1\n`;
}

test("idle exit: stopped by idle_exit, not failed; the next proxied request resumes it; a requested stop stays stopped", async () => {
  const a = api(gw);
  const project = await registerProject(gw, { config: idleConfig() });
  const id = (await a.create(project.projectId)).body.id as string;
  const running = await a.settled(id);
  expect(running.state).toBe("running");
  const pid = running.pid!;

  await until(() => !processExists(pid), "the idle daemon to exit");
  await until(async () => (await a.get(id)).body.state !== "running", "the record to leave running");
  const stopped = (await a.get(id)).body;
  expect(stopped).toMatchObject({ state: "stopped", pid: null, port: null });
  expect(stopped.transitions.at(-1)).toMatchObject({ from: "running", to: "stopped", trigger: "idle_exit" });

  // A client attaching through the proxy gets its answer from a fresh daemon.
  const proxied = `${gw.url}/api/v1/sessions/${id}/proxy`;
  const sync = await fetch(`${proxied}/sync`, { headers: { Authorization: `Bearer ${gw.token}` } });
  expect(sync.status).toBe(200);
  const snap = await sync.json();
  expect(snap.session_state).toBe("running");
  expect(snap.daemon_epoch).not.toBe(running.daemon_epoch);
  const resumed = (await a.get(id)).body;
  expect(resumed.state).toBe("running");
  expect(resumed.transitions.at(-1)).toMatchObject({ from: "stopped", to: "running", trigger: "resume" });
  expect(processExists(resumed.pid)).toBe(true);

  // Stopped on request: a proxied request does not bring it back.
  expect((await a.call("POST", `/api/v1/sessions/${id}/stop`)).status).toBe(200);
  const refused = await fetch(`${proxied}/sync`, { headers: { Authorization: `Bearer ${gw.token}` } });
  expect(refused.status).toBe(503);
  expect((await refused.json()).state).toBe("stopped");
}, 90_000);
