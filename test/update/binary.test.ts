// The compiled binary (dist/agent) as a user runs it: `agent update` replaces the running binary itself,
// and a configured telemetry block loads the OpenTelemetry SDK inside the binary and exports.
import { afterEach, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { startOtlpReceiver, type OtlpReceiver } from "../telemetry/otlp-receiver.ts";
import { startReleaseServer, type ReleaseServer } from "./release-server.ts";

let server: ReleaseServer | null = null;
let receiver: OtlpReceiver | null = null;
afterEach(() => {
  server?.stop();
  receiver?.stop();
  server = receiver = null;
});

function home(config: string) {
  const base = mkdtempSync(join(tmpdir(), "agent-bin-platform-"));
  mkdirSync(join(base, "config", "agent"), { recursive: true });
  writeFileSync(join(base, "config", "agent", "config.yaml"), config);
  mkdirSync(join(base, "project", ".git"), { recursive: true });
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: base, XDG_CONFIG_HOME: join(base, "config"), XDG_DATA_HOME: join(base, "data") };
  return { base, env, project: join(base, "project") };
}

async function run(cmd: string[], cwd: string, env: Record<string, string>) {
  const proc = Bun.spawn(cmd, { cwd, env, stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, out, err };
}

test("dist/agent update replaces the running binary with the verified release", async () => {
  ensureBinary();
  server = startReleaseServer([{ version: "99.0.0", channel: "stable" }]);
  const h = home(`updates: { manifest_url: "${server.manifestUrl}" }\n`);
  const dir = join(h.base, "bin");
  mkdirSync(dir);
  const agent = join(dir, "agent");
  copyFileSync(BINARY, agent);
  Bun.spawnSync(["chmod", "755", agent]);
  const r = await run([agent, "update"], h.project, h.env);
  expect(r.err).toBe("downloading agent 99.0.0 for " + `${process.platform}-${process.arch} (0.0 MB)…\n`);
  expect(r.out).toMatch(new RegExp(`^updated ${agent}: \\d+\\.\\d+\\.\\d+ -> 99\\.0\\.0\\n$`));
  expect(r.code).toBe(0);
  expect((await run([agent, "--version"], h.project, h.env)).out).toBe("agent 99.0.0\n");
  expect(readdirSync(dir)).toEqual(["agent"]);
}, 120_000);

test("dist/agent exec with a telemetry block exports its turn (the SDK loads inside the binary)", async () => {
  ensureBinary();
  receiver = startOtlpReceiver();
  const h = home(`telemetry: { endpoint: "${receiver.url}" }\n`);
  const r = await run([BINARY, "exec", "--demo", "hello"], h.project, h.env);
  expect(r.code).toBe(0);
  const names = receiver.spans().map((s) => s.name);
  expect(names).toContain("agent.turn");
  expect(names).toContain("chat");
  expect(receiver.spans()[0]!.resource["service.name"]).toBe("agent");
}, 120_000);
