// The compiled binary as a user runs it: `agent update` replaces the running binary itself with a signed
// release and refuses an unsigned or wrongly signed one, plain http to another host and a wrong checksum
// (a test build that trusts the tests' key, compiled here; dist/agent trusts release-keys.pem only), and a
// configured telemetry block loads the OpenTelemetry SDK inside the binary and exports.
import { afterEach, beforeAll, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileAgent } from "../../build.ts";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { startOtlpReceiver, type OtlpReceiver } from "../telemetry/otlp-receiver.ts";
import { startReleaseServer, TEST_PUBLIC_PEM, type ReleaseServer, type Signing } from "./release-server.ts";

/** An agent 0.1.0 built with the tests' release key compiled in (what a release build does with its keys). */
const KEYED = join(mkdtempSync(join(tmpdir(), "agent-keyed-build-")), "agent");
beforeAll(async () => {
  await compileAgent({ outfile: KEYED, version: "0.1.0", commit: "0".repeat(40), releaseKeys: [TEST_PUBLIC_PEM] });
}, 300_000);

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

/** A copy of `binary` installed in a fresh home whose config points updates at `manifestUrl`. */
function installed(binary: string, manifestUrl: string) {
  const h = home(`updates: { manifest_url: "${manifestUrl}" }\n`);
  const dir = join(h.base, "bin");
  mkdirSync(dir);
  const agent = join(dir, "agent");
  copyFileSync(binary, agent);
  Bun.spawnSync(["chmod", "755", agent]);
  return { ...h, dir, agent };
}

test("a release build replaces the running binary with the signed, verified release", async () => {
  server = startReleaseServer([{ version: "99.0.0", channel: "stable" }]);
  const u = installed(KEYED, server.manifestUrl);
  const r = await run([u.agent, "update"], u.project, u.env);
  expect(r.err).toBe("downloading agent 99.0.0 for " + `${process.platform}-${process.arch} (0.0 MB)…\n`);
  expect(r.out).toBe(`updated ${u.agent}: 0.1.0 -> 99.0.0\n`);
  expect(r.code).toBe(0);
  expect((await run([u.agent, "--version"], u.project, u.env)).out).toBe("agent 99.0.0\n");
  expect(readdirSync(u.dir)).toEqual(["agent"]);
}, 120_000);

/** A "binary" that leaves a marker file behind if it is ever run. */
function markerRelease() {
  const marker = join(mkdtempSync(join(tmpdir(), "agent-marker-")), "ran");
  return { marker, bytes: new TextEncoder().encode(`#!/bin/sh\ntouch '${marker}'\necho "agent 0.2.0"\n`) };
}

for (const [name, signing, sha256, viaProxy, refusal] of [
  ["an unsigned manifest", "none", undefined, false, /is not signed \(http:\/\/127\.0\.0\.1:\d+\/manifest\.json\.sig answered HTTP 404\)/],
  ["a manifest signed by a key it does not trust", "other-key", undefined, false, /refusing the update: the release manifest at \S+ is signed by key [0-9a-f]{16}, which this agent does not trust/],
  ["a manifest changed after it was signed", "altered", undefined, false, /refusing the update: the signature of the release manifest at \S+ by key [0-9a-f]{16} does not match its content/],
  ["a signed manifest on plain http to another host (reached through a proxy)", "test-key", undefined, true, /refusing the release manifest http:\/\/releases\.example\.com\/manifest\.json: plain http is allowed only to this machine/],
  ["a download whose checksum is not the signed manifest's", "test-key", "0".repeat(64), false, /update failed: the download's SHA-256 is [0-9a-f]{64}, not the manifest's 0{64}; the installed binary is unchanged/],
] as const) {
  test(`a release build refuses ${name}: exit 1, the download never runs, the binary is byte-identical`, async () => {
    const release = markerRelease();
    server = startReleaseServer([{ version: "0.2.0", channel: "stable", bytes: release.bytes, ...(sha256 ? { sha256 } : {}) }], signing as Signing);
    const u = installed(KEYED, viaProxy ? "http://releases.example.com/manifest.json" : server.manifestUrl);
    // Through the proxy a name that is not this machine reaches the release server: what a network attacker gets.
    const env = viaProxy ? { ...u.env, HTTP_PROXY: server.url, http_proxy: server.url } : u.env;
    const before = readFileSync(u.agent);
    const r = await run([u.agent, "update"], u.project, env);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(refusal);
    expect(existsSync(release.marker)).toBe(false);
    expect(readFileSync(u.agent).equals(before)).toBe(true);
    expect(readdirSync(u.dir)).toEqual(["agent"]);
    expect((await run([u.agent, "--version"], u.project, u.env)).out).toStartWith("agent 0.1.0 ");
  }, 120_000);
}

test("dist/agent, built without a release key, refuses every manifest and says why", async () => {
  ensureBinary();
  server = startReleaseServer([{ version: "99.0.0", channel: "stable" }]);
  const u = installed(BINARY, server.manifestUrl);
  const before = readFileSync(u.agent);
  const r = await run([u.agent, "update"], u.project, u.env);
  expect(r.code).toBe(1);
  expect(r.err).toContain("this agent was built without a release signing key (release-keys.pem held none)");
  expect(readFileSync(u.agent).equals(before)).toBe(true);
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
