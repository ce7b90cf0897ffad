// The host credential stays with the host agent: read from $AGENT_HOST_TOKEN once, it is in no environment
// the agent starts, not even for a configuration that names the variable (the pre-run script's environment
// is the daemon's, dumped here by the script itself).
import { afterEach, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { tempDir, type TestGateway } from "../helpers.ts";
import { MAIN, stopGateway, until } from "../sessions/helpers.ts";
import { HOST, hostFront } from "./agent-helpers.ts";

const agents: Subprocess[] = [];
const fronts: TestGateway[] = [];
afterEach(async () => {
  for (const a of agents.splice(0)) a.kill("SIGKILL");
  for (const f of fronts.splice(0)) await stopGateway(f);
});

test("a configuration naming AGENT_HOST_TOKEN does not get the host's token into the session's environment", async () => {
  const f = await hostFront(HOST, { config: 'plugins:\n  note: "${AGENT_HOST_TOKEN:-unset}"\ndefault_permission_matcher: bypass\n', preRun: "env\n" });
  fronts.push(f.gw);
  const dataDir = tempDir("host-agent-env-");
  agents.push(Bun.spawn([process.execPath, MAIN, "gateway", "host", "--join", f.gw.url, "--name", HOST, "--data-dir", dataDir], { env: { ...process.env, AGENT_HOST_TOKEN: f.token }, stdin: "ignore", stdout: "ignore", stderr: "ignore" }));
  await until(() => f.gw.ctx.hostLinks.get(HOST) !== undefined, "the agent to join");
  const created = await f.front.call("POST", "/api/v1/sessions", { project_id: f.project.projectId, launch_mode: "project_direct" });
  expect(created.status).toBe(201);
  await until(async () => (await f.row(created.body.id))?.state !== "starting", "the launch");
  const env = readFileSync(join(dataDir, "sessions", created.body.id, "pre-run.log"), "utf8");
  expect(env).toContain(`AGENT_GATEWAY_SESSION_ID=${created.body.id}`);
  expect(env).not.toContain(f.token);
  expect(env).not.toContain("AGENT_HOST_TOKEN=");
});
