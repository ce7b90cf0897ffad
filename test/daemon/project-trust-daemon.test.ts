// A daemon started as the gateway starts it (`--config` = the registered configuration): that
// configuration's tool servers are the operator's and start; the project's own .agent/config.yaml is
// not trusted by registering the project, so its tool server does not start until `agent trust DIR` on
// the host, and the session's notice says so (docs/decisions-gateway-sessions.md).
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { configuredEngine } from "../../src/cli/daemon-run.ts";
import { dataRoot } from "../../src/config/files.ts";
import { loadConfig } from "../../src/config/load.ts";
import { grantTrust } from "../../src/config/trust/assess.ts";
import { ProjectTrustStore, projectTrustFile } from "../../src/config/trust/store.ts";
import { startDaemon, type RunningDaemon } from "../../src/daemon/serve.ts";
import { makeProject } from "../agent/harness.ts";
import { EVERYTHING_BIN } from "../mcp/helpers.ts";
import { TOKEN, tempSessionDir } from "./harness.ts";

let running: RunningDaemon | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

const auth = { Authorization: `Bearer ${TOKEN}` };

async function start(p: { root: string; env: Record<string, string> }, configFile: string) {
  const { engineFactory, reload } = configuredEngine(p.env, false, { configFile });
  running = await startDaemon({ sessionDir: tempSessionDir(), project: p.root, credential: TOKEN, engineFactory, reloadCatalog: reload, limits: { heartbeatMs: 0 } });
  // Tool servers connect in the background (decisions-mcp 21): wait until none is still connecting.
  let state: { mcp_servers: { name: string; state: string }[] };
  for (let i = 0; ; i++) {
    state = (await (await fetch(`${running.url}/daemon-state`, { headers: auth })).json()) as typeof state;
    if (!state.mcp_servers.some((s) => s.state === "connecting") || i >= 200) break;
    await Bun.sleep(100);
  }
  const snap = (await (await fetch(`${running.url}/sync`, { headers: auth })).json()) as { origin_cursor: string; seq: string };
  const res = await fetch(`${running.url}/events?after=${encodeURIComponent(snap.origin_cursor)}`, { headers: auth });
  const reader = res.body!.getReader();
  let records = "";
  while (!records.includes(`"seq":"${snap.seq}"`)) {
    const { value, done } = await reader.read();
    if (done) break;
    records += new TextDecoder().decode(value);
  }
  await reader.cancel();
  return { servers: state.mcp_servers.map((s) => `${s.name}:${s.state}`), records };
}

describe("gateway-launched daemon and project trust", () => {
  test("the registered configuration's server starts; the project's own waits for agent trust on the host", async () => {
    const p = makeProject("", { "script.yaml": "responses:\n  - text: ok\n" });
    const marker = join(p.root, "marker");
    writeFileSync(join(p.root, ".agent", "config.yaml"), `mcp_servers:\n  project_probe: { transport: stdio, command: sh, args: ["-c", "touch ${marker}; exec cat"] }\n`);
    const configuration = join(p.root, "..", "configuration.yaml");
    writeFileSync(configuration, `providers:\n  offline: { kind: { type: catalog, name: test }, url: script.yaml }\nmcp_servers:\n  ev: { transport: stdio, command: "${EVERYTHING_BIN}", args: [stdio], pass_env: [PATH] }\n`);

    const untrusted = await start(p, configuration);
    expect(untrusted.servers).toEqual(["ev:connected"]);
    expect(existsSync(marker)).toBe(false);
    expect(untrusted.records).toContain("is not trusted; started without: tool server 'project_probe' runs: sh -c 'touch");
    expect(untrusted.records).toContain("then run 'agent trust' and start the session again");
    await running!.stop();
    running = undefined;

    grantTrust(new ProjectTrustStore(projectTrustFile(dataRoot(p.env))), loadConfig({ cwd: p.root, env: p.env, configFile: configuration, untrusted: "keep" }).trust);
    const trusted = await start(p, configuration);
    expect(trusted.servers).toContain("ev:connected");
    expect(trusted.servers.some((s) => s.startsWith("project_probe:"))).toBe(true);
    expect(existsSync(marker)).toBe(true);
    expect(trusted.records).not.toContain("is not trusted");
  });
});
