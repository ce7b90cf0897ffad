// A gateway restart's reconciliation while clients already call it: the listener opens before the sessions
// left by the earlier run are re-adopted or failed, so a session created then, or a GET of a leftover one,
// must not be judged by it or race it (decisions-gateway-sessions 34).
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { CREDENTIAL_FILE, loadCredential } from "../../../src/daemon/credential.ts";
import { startTestGateway } from "../helpers.ts";
import { api, FAKE_DAEMON_COMMAND, FAST, registerProject, sessionGateway, stopGateway, until } from "./helpers.ts";
import { processRunning } from "../../helpers/processes.ts";

const gateways: Awaited<ReturnType<typeof startTestGateway>>[] = [];
const pids: number[] = [];

afterAll(async () => {
  for (const gw of gateways) await stopGateway(gw);
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

/** A port nothing listens on right now. */
function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

test("a session created while the restart's health probe of a hung leftover waits ends running with its daemon; the leftover ends failed by the reconciliation", async () => {
  const first = await sessionGateway();
  gateways.push(first);
  first.ctx.sessions.daemonCommand = FAKE_DAEMON_COMMAND;
  const dataDir = first.ctx.dataDir;
  const { projectId } = await registerProject(first);
  const a1 = api(first);
  const leftover = await a1.settled((await a1.create(projectId)).body.id);
  expect(leftover.state).toBe("running");
  pids.push(leftover.pid!);
  // From now on its daemon's port accepts the health check and never answers it.
  expect((await a1.call("POST", `/api/v1/sessions/${leftover.id}/proxy/stall-health`)).status).toBe(200);
  await first.stop();

  const daemonToken = loadCredential(join(dataDir, "sessions", leftover.id, CREDENTIAL_FILE));
  const stalled = async () => ((await (await fetch(`http://127.0.0.1:${leftover.port}/stats`, { headers: { Authorization: `Bearer ${daemonToken}` } })).json()) as { health_stalled: number }).health_stalled;
  expect(await stalled()).toBe(0);

  // The restart, on a port known in advance: clients reach it while it still reconciles.
  const port = freePort();
  const config = { ...first.ctx.config, listen: { ...first.ctx.config.listen, port } };
  const starting = startTestGateway(FAST, { dataDir, config, daemonCommand: FAKE_DAEMON_COMMAND });
  await until(async () => (await stalled()) > 0, "the reconciliation's health probe to reach the hung daemon");

  // The window: the listener is open, the probe of the leftover waits.
  const client = api({ url: `http://127.0.0.1:${port}`, token: first.token });
  const [created, read] = await Promise.all([client.create(projectId), client.get(leftover.id)]);
  const second = await starting;
  gateways.push(second);

  expect(created.status).toBe(201);
  const fresh = await client.settled(created.body.id);
  expect(fresh.state).toBe("running");
  pids.push(fresh.pid!);
  expect(processRunning(fresh.pid!)).toBe(true);
  expect(fresh.transitions.map((t) => t.to)).toEqual(["starting", "running"]);
  // Its daemon answers through the proxy.
  expect((await client.call("GET", `/api/v1/sessions/${fresh.id}/proxy/stats`)).status).toBe(200);

  // The leftover was judged by the reconciliation alone, not by the GET sent while it ran.
  expect(read.status).toBe(200);
  expect(read.body.state).toBe("failed");
  const ended = (await client.get(leftover.id)).body;
  expect(ended.state).toBe("failed");
  expect(ended.transitions.at(-1)).toMatchObject({ from: "running", to: "failed", trigger: "reconciliation" });
  expect(ended.transitions.at(-1).detail).toContain("did not answer its health check");
  await until(() => !processRunning(leftover.pid!), "the hung daemon to be ended");
}, 90_000);
