// The compiled binary as a gateway launches ITSELF as the session daemon (process.execPath), as it does
// when installed: `dist/agent gateway serve`, a session created over HTTP, its daemon's command line.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { BINARY, ensureBinary } from "../../helpers/binary.ts";

let server: Subprocess | undefined;
let daemonPid: number | undefined;
afterAll(async () => {
  server?.kill("SIGTERM");
  await server?.exited;
  // Daemons outlive their gateway: end this one even when the test failed half-way.
  try {
    if (daemonPid) process.kill(daemonPid, "SIGKILL");
  } catch {
    // already gone
  }
});

describe("compiled gateway", () => {
  test("spawns its own binary as `agent daemon` for a session", async () => {
    ensureBinary();
    const dir = mkdtempSync(join(tmpdir(), "gw-bin-sess-"));
    const config = join(dir, "gateway-config.yaml");
    writeFileSync(config, `data_dir: ${join(dir, "data")}\nlisten: {address: 127.0.0.1, port: 0}\nauth:\n  password: {memory_kib: 8192, time_cost: 1}\n`);
    const env = { ...process.env, XDG_CONFIG_HOME: join(dir, "cfg"), XDG_DATA_HOME: join(dir, "xdg") };
    const cli = (args: string[]) => {
      const r = Bun.spawnSync([BINARY, "gateway", ...args, "--config", config], { env });
      if (r.exitCode !== 0) throw new Error(`${args.join(" ")}: ${r.stderr}`);
      return r.stdout.toString().trim();
    };
    cli(["principal", "create", "ci"]);
    const token = cli(["token", "create", "ci", "--label", "test"]);
    server = Bun.spawn([BINARY, "gateway", "serve", "--config", config], { env, stdout: "pipe", stderr: "pipe" });
    const reader = (server.stdout as ReadableStream<Uint8Array>).getReader();
    let banner = "";
    while (!/listening on (\S+)/.test(banner)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the gateway exited: ${banner}`);
      banner += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    const base = /listening on (\S+)/.exec(banner)![1]!;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, { method, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    };

    const project = join(dir, "project");
    mkdirSync(project);
    writeFileSync(join(dir, "script.yaml"), "responses:\n  - text: hi\n");
    expect((await call("POST", "/api/v1/configurations", { name: "ci", config_format: "yaml", config_content: `providers:\n  offline: { kind: { type: catalog, name: test }, url: ${join(dir, "script.yaml")} }\n` })).status).toBe(201);
    const registered = await call("POST", "/api/v1/projects", { path: project, config_name: "ci" });
    expect(registered.status).toBe(201);
    let session = (await call("POST", "/api/v1/sessions", { project_id: registered.body.id, launch_mode: "project_direct" })).body;
    while (session.state === "starting") {
      await Bun.sleep(100);
      session = (await call("GET", `/api/v1/sessions/${session.id}`)).body;
    }
    expect(session.state).toBe("running");
    daemonPid = session.pid;
    const cmdline = readFileSync(`/proc/${session.pid}/cmdline`, "utf8").split("\0");
    expect(cmdline.slice(0, 2)).toEqual([BINARY, "daemon"]);
    expect((await call("GET", `/api/v1/sessions/${session.id}/proxy/sync`)).body.daemon_epoch).toBe(session.daemon_epoch);
    expect((await call("DELETE", `/api/v1/sessions/${session.id}`)).status).toBe(204);
  }, 180_000);
});
