// `agent update` against a local release server with stand-in binaries in a temp dir: a verified,
// atomic swap on success; the old binary untouched on a bad checksum, an interrupted transfer or a
// binary that does not run; newer/older/same versions; stable and beta channels.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Io } from "../../src/util/cli-command.ts";
import { runCli } from "../../src/cli/run.ts";
import { fakeBinary, installedBinary, startReleaseServer, type ReleaseServer, type ReleaseSpec } from "./release-server.ts";

let server: ReleaseServer | null = null;
afterEach(() => {
  server?.stop();
  server = null;
});

function userEnv(updates: string): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), "agent-update-home-"));
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, "config"), XDG_DATA_HOME: join(home, "data"), PATH: process.env.PATH ?? "/usr/bin:/bin" };
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

function setup(releases: ReleaseSpec[], installed = "0.1.0", channel = "stable") {
  server = startReleaseServer(releases);
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
    expect(server!.requests).toEqual(["/manifest.json"]);
    server!.stop();

    s = setup([{ version: "0.2.0", channel: "stable" }], "0.2.0");
    r = await agent(["update", "--binary", s.bin.path], s.env);
    expect(r.out).toBe("agent 0.2.0 is up to date (newest on the stable channel: 0.2.0)\n");
    server!.stop();

    s = setup([{ version: "0.1.5", channel: "stable" }], "0.2.0");
    r = await agent(["update", "--binary", s.bin.path], s.env);
    expect(r.out).toBe("agent 0.2.0 is up to date (newest on the stable channel: 0.1.5)\n");
    expect(versionOf(s.bin.path)).toBe("agent 0.2.0");
    expect(server!.requests).toEqual(["/manifest.json"]);
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

    const bad = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ format: 1, releases: [{ version: "one", channel: "stable", assets: {} }] }) });
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
