// `agent update` against a local release server with stand-in binaries in a temp dir: a verified,
// atomic swap on success; the old binary untouched on an unsigned or wrongly signed manifest, plain http
// to another host, a bad checksum, an interrupted transfer or a binary that does not run; newer/older/same
// versions; stable and beta channels. Run from source, the agent trusts the test key through AGENT_RELEASE_KEYS.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Io } from "../../src/util/cli-command.ts";
import { runCli } from "../../src/cli/run.ts";
import { signatureFile } from "../../src/update/signature.ts";
import { fakeBinary, installedBinary, startReleaseServer, TEST_KEY, TRUST_TEST_KEY, type ReleaseServer, type ReleaseSpec, type Signing } from "./release-server.ts";

let server: ReleaseServer | null = null;
afterEach(() => {
  server?.stop();
  server = null;
});

function userEnv(updates: string): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), "agent-update-home-"));
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, "config"), XDG_DATA_HOME: join(home, "data"), PATH: process.env.PATH ?? "/usr/bin:/bin", ...TRUST_TEST_KEY };
  mkdirSync(join(home, "config", "agent"), { recursive: true });
  writeFileSync(join(home, "config", "agent", "config.yaml"), `updates:\n${updates}`);
  return env;
}

async function agent(argv: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: Io = { out: (t) => void (out += t), err: (t) => void (err += t), isTty: false, cwd: env.HOME!, env, stdin: async () => "" };
  const code = await runCli(argv, io);
  return { code, out, err };
}

const versionOf = (path: string) => Bun.spawnSync([path, "--version"]).stdout.toString().trim();

function setup(releases: ReleaseSpec[], installed = "0.1.0", channel = "stable", signing: Signing = "test-key") {
  server = startReleaseServer(releases, signing);
  const bin = installedBinary(installed);
  const env = userEnv(`  manifest_url: "${server.manifestUrl}"\n  channel: ${channel}\n`);
  return { bin, env };
}

describe("agent update", () => {
  test("installs the newest release over the binary: verified, same mode, no temp file left", async () => {
    const { bin, env } = setup([{ version: "0.2.0", channel: "stable" }, { version: "0.3.0", channel: "stable" }]);
    const r = await agent(["update", "--binary", bin.path], env);
    expect(r.err).toContain("downloading agent 0.3.0");
    expect(r.out).toBe(`updated ${bin.path}: 0.1.0 -> 0.3.0\n`);
    expect(r.code).toBe(0);
    expect(versionOf(bin.path)).toBe("agent 0.3.0");
    expect(statSync(bin.path).mode & 0o777).toBe(0o755);
    expect(readdirSync(bin.dir)).toEqual(["agent"]);
    const again = await agent(["update", "--binary", bin.path, "--json"], env);
    expect(JSON.parse(again.out)).toMatchObject({ current: "0.3.0", latest: "0.3.0", available: false, updated: false });
  });

  /** A "binary" that leaves `marker` behind if it is ever run, and otherwise answers --version as 0.2.0. */
  function markerScript() {
    const marker = join(mkdtempSync(join(tmpdir(), "agent-update-marker-")), "ran");
    return { marker, bytes: new TextEncoder().encode(`#!/bin/sh\ntouch '${marker}'\necho "agent 0.2.0"\n`) };
  }

  for (const [signing, refusal] of [
    ["none", /^agent: the release manifest at http:\/\/127\.0\.0\.1:\d+\/manifest\.json is not signed \(http:\/\/127\.0\.0\.1:\d+\/manifest\.json\.sig answered HTTP 404\); agent installs only releases signed with a key it trusts\n$/],
    ["other-key", /^agent: refusing the update: the release manifest at \S+ is signed by key [0-9a-f]{16}, which this agent does not trust \(it trusts [0-9a-f]{16}\)\n$/],
    ["altered", /^agent: refusing the update: the signature of the release manifest at \S+ by key [0-9a-f]{16} does not match its content: it was changed after it was signed\n$/],
  ] as const) {
    test(`a manifest ${signing === "none" ? "without a signature" : signing === "other-key" ? "signed by a key it does not trust" : "changed after it was signed"} is refused: nothing is downloaded or run, the binary is byte-identical`, async () => {
      const script = markerScript();
      const { bin, env } = setup([{ version: "0.2.0", channel: "stable", bytes: script.bytes }], "0.1.0", "stable", signing);
      const before = readFileSync(bin.path);
      for (const argv of [["update", "--binary", bin.path], ["update", "--check", "--binary", bin.path]]) {
        const r = await agent(argv, env);
        expect(r.code).toBe(1);
        expect(r.err).toMatch(refusal);
      }
      expect(server!.requests.some((p) => p.startsWith("/files/"))).toBe(false);
      expect(existsSync(script.marker)).toBe(false);
      expect(readFileSync(bin.path).equals(before)).toBe(true);
      expect(readdirSync(bin.dir)).toEqual(["agent"]);
    });
  }

  test("plain http to another host is refused before anything is fetched; https and loopback http are the only ways", async () => {
    const bin = installedBinary("0.1.0");
    const before = readFileSync(bin.path);
    const r = await agent(["update", "--binary", bin.path], userEnv(`  manifest_url: "http://releases.example.com/agent/manifest.json"\n`));
    expect(r.code).toBe(1);
    expect(r.err).toBe("agent: refusing the release manifest http://releases.example.com/agent/manifest.json: plain http is allowed only to this machine (localhost, 127.0.0.1, [::1]); use https\n");
    expect(readFileSync(bin.path).equals(before)).toBe(true);
  });

  test("a signed manifest whose checksum does not match the download: refused before the file is made executable or run", async () => {
    const script = markerScript();
    const { bin, env } = setup([{ version: "0.2.0", channel: "stable", bytes: script.bytes, sha256: "0".repeat(64) }]);
    const before = readFileSync(bin.path);
    const r = await agent(["update", "--binary", bin.path], env);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`update failed: the download's SHA-256 is`);
    expect(existsSync(script.marker)).toBe(false);
    expect(readFileSync(bin.path).equals(before)).toBe(true);
    expect(readdirSync(bin.dir)).toEqual(["agent"]);
  });

  test("a wrong checksum is refused and the old binary keeps working", async () => {
    const { bin, env } = setup([{ version: "0.2.0", channel: "stable", sha256: "0".repeat(64) }]);
    const r = await agent(["update", "--binary", bin.path], env);
    expect(r.code).toBe(1);
    expect(r.err).toContain("update failed: the download's SHA-256 is");
    expect(r.err).toContain("the installed binary is unchanged");
    expect(versionOf(bin.path)).toBe("agent 0.1.0");
    expect(readdirSync(bin.dir)).toEqual(["agent"]);
  });

  test("an interrupted transfer is refused and the old binary keeps working", async () => {
    const big = new Uint8Array([...fakeBinary("0.2.0"), ...new TextEncoder().encode(`# ${"x".repeat(64 * 1024)}\n`)]);
    const { bin, env } = setup([{ version: "0.2.0", channel: "stable", bytes: big, interrupt: true }]);
    const r = await agent(["update", "--binary", bin.path], env);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/the download was interrupted after \d+ of \d+ bytes; the installed binary is unchanged/);
    expect(versionOf(bin.path)).toBe("agent 0.1.0");
    expect(readdirSync(bin.dir)).toEqual(["agent"]);
  });

  test("a download that does not run as the promised version is refused", async () => {
    const { bin, env } = setup([{ version: "0.2.0", channel: "stable", bytes: fakeBinary("6.6.6") }]);
    const r = await agent(["update", "--binary", bin.path], env);
    expect(r.code).toBe(1);
    expect(r.err).toContain("the downloaded binary does not run as agent 0.2.0 (it printed 'agent 6.6.6', exit 0)");
    expect(versionOf(bin.path)).toBe("agent 0.1.0");
    expect(readdirSync(bin.dir)).toEqual(["agent"]);
  });

  test("--check: newer is offered; the same or an older release is never a downgrade", async () => {
    let s = setup([{ version: "0.2.0", channel: "stable" }], "0.1.0");
    let r = await agent(["update", "--check", "--binary", s.bin.path], s.env);
    expect(r.out).toBe("agent 0.2.0 is available (you have 0.1.0; channel stable); run `agent update` to install it\n");
    expect(server!.requests).toEqual(["/manifest.json", "/manifest.json.sig"]);
    server!.stop();

    s = setup([{ version: "0.2.0", channel: "stable" }], "0.2.0");
    r = await agent(["update", "--binary", s.bin.path], s.env);
    expect(r.out).toBe("agent 0.2.0 is up to date (newest on the stable channel: 0.2.0)\n");
    server!.stop();

    s = setup([{ version: "0.1.5", channel: "stable" }], "0.2.0");
    r = await agent(["update", "--binary", s.bin.path], s.env);
    expect(r.out).toBe("agent 0.2.0 is up to date (newest on the stable channel: 0.1.5)\n");
    expect(versionOf(s.bin.path)).toBe("agent 0.2.0");
    expect(server!.requests).toEqual(["/manifest.json", "/manifest.json.sig"]);
  });

  test("channels: stable sees stable releases only; beta sees both and takes the newest", async () => {
    const releases: ReleaseSpec[] = [
      { version: "0.2.0", channel: "stable" },
      { version: "0.3.0-beta.2", channel: "beta" },
      { version: "0.3.0-beta.10", channel: "beta" },
    ];
    const s = setup(releases, "0.1.0", "beta");
    const check = async (extra: string[]) => JSON.parse((await agent(["update", "--check", "--json", "--binary", s.bin.path, ...extra], s.env)).out).latest;
    expect(await check([])).toBe("0.3.0-beta.10");
    expect(await check(["--channel", "stable"])).toBe("0.2.0");
    const r = await agent(["update", "--binary", s.bin.path], s.env);
    expect(r.code).toBe(0);
    expect(versionOf(s.bin.path)).toBe("agent 0.3.0-beta.10");
    server!.stop();
    // A stable release newer than the last beta reaches beta users too.
    const t = setup([...releases, { version: "0.3.0", channel: "stable" }], "0.3.0-beta.10", "beta");
    expect(JSON.parse((await agent(["update", "--check", "--json", "--binary", t.bin.path], t.env)).out)).toMatchObject({ latest: "0.3.0", available: true });
  });

  test("clear errors: no manifest configured, an invalid manifest, a platform without an asset", async () => {
    const bin = installedBinary("0.1.0");
    let r = await agent(["update", "--binary", bin.path], userEnv("  channel: stable\n"));
    expect(r.code).toBe(1);
    expect(r.err).toContain("no release manifest is configured: set updates.manifest_url in the global config");

    // Signed, so that the content is what gets checked.
    const invalid = JSON.stringify({ format: 1, releases: [{ version: "one", channel: "stable", assets: {} }] });
    const bad = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => new Response(req.url.endsWith(".sig") ? signatureFile(Buffer.from(invalid), [TEST_KEY.privateKey]) : invalid) });
    try {
      r = await agent(["update", "--check"], userEnv(`  manifest_url: "http://127.0.0.1:${bad.port}/m.json"\n`));
      expect(r.err).toContain(`the release manifest at http://127.0.0.1:${bad.port}/m.json is invalid: releases.0.version 'one' is not a version`);
    } finally {
      bad.stop(true);
    }

    const s = setup([{ version: "0.2.0", channel: "stable", platform: "plan9-mips" }]);
    r = await agent(["update", "--check", "--binary", s.bin.path], s.env);
    expect(r.out).toContain(`the stable channel has no release for ${process.platform}-${process.arch}`);
  });
});
