// The npm package's postinstall (npm/agent/install.js) as a user meets it: tarballs packed by
// scripts/release-npm.ts from dist/agent for this machine only (no cross-compiling), installed with the
// real npm, offline, with only node and npm on PATH. After `npm install -g` npm's `agent` is the ELF
// binary itself; --ignore-scripts, a binary that fails the check, or another package manager leave the
// Node launcher, which still works. Upgrade, `npm rebuild`, uninstall and a local install are covered.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildNpmPackages } from "../../scripts/release-npm.ts";
import { hostTarget } from "../../scripts/release-targets.ts";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { nodeOnlyPath } from "../helpers/node-only-path.ts";

const host = hostTarget();
const unix = host !== null && host.os !== "win32";
const work = mkdtempSync(join(tmpdir(), "agent-npm-postinstall-"));
const MAIN = "@agent-runtime/agent";
const PACKAGE_BIN = join("node_modules", "@agent-runtime", "agent", "bin", "agent.js");
let version = "";
let versionLine = "";
/** Tarball paths of each variant: main package first, then the platform package. */
const sets: Record<"good" | "broken" | "wrong" | "next" | "marker", string[]> = { good: [], broken: [], wrong: [], next: [], marker: [] };
/** Left behind if the swapped-in platform binary is ever run. */
const marker = join(work, "swapped-binary-ran");

const report = join(work, "postinstall-report");
const npmEnv = () => ({ PATH: nodeOnlyPath(work), HOME: join(work, "npm-home"), npm_config_cache: join(work, "npm-cache"), AGENT_POSTINSTALL_REPORT: report });

/** Runs npm; returns its output. Every install must succeed. */
function npm(args: string[], cwd = work) {
  rmSync(report, { force: true });
  const r = Bun.spawnSync(["npm", ...args, "--offline", "--no-audit", "--no-fund"], { cwd, env: npmEnv(), stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`npm ${args.join(" ")} failed: ${r.stdout}${r.stderr}`);
  // npm 11 warns about every package with install scripts until they are allowed (allow-scripts); the
  // script still runs. What is left of stderr is what an install said about this package.
  const err = r.stderr.toString().split("\n").filter((line) => !line.startsWith("npm warn install-scripts")).join("\n");
  return { out: r.stdout.toString(), err, postinstall: existsSync(report) ? readFileSync(report, "utf8").trim() : null };
}

const installGlobal = (prefix: string, set: string[], ...flags: string[]) => npm(["install", "-g", "--prefix", prefix, ...flags, ...set]);

async function run(cmd: string[], cwd = work) {
  const proc = Bun.spawn(cmd, { cwd, env: { PATH: "/usr/bin:/bin", HOME: join(work, "user-home") }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, out, err };
}

const isElf = (path: string) => readFileSync(path).subarray(0, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
const isLauncher = (path: string) => readFileSync(path, "utf8").startsWith("#!/usr/bin/env node\n");

/** Starts `agent acp`, waits for its answer to initialize, sends SIGTERM: how it ended. */
async function terminated(agent: string) {
  const proc = Bun.spawn([agent, "acp"], { cwd: work, env: { PATH: "/usr/bin:/bin", HOME: join(work, "user-home") }, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`);
  proc.stdin.flush();
  const { value } = await proc.stdout.getReader().read();
  expect(new TextDecoder().decode(value)).toContain('"id":1');
  proc.kill("SIGTERM");
  await proc.exited;
  return { exitCode: proc.exitCode, signal: proc.signalCode };
}

beforeAll(() => {
  if (!unix) return;
  ensureBinary();
  const printed = Bun.spawnSync([BINARY, "--version"], { stdout: "pipe" }).stdout.toString();
  versionLine = printed;
  version = printed.split(" ")[1]!;
  const pack = (name: keyof typeof sets, binary: string, v = version) => {
    sets[name] = buildNpmPackages({ version: v, binaries: [{ target: host!, path: binary }], work: join(work, `pkg-${name}`), out: join(work, name) }).map((t) => join(work, name, t));
  };
  pack("good", BINARY);
  // A binary that fails the check in two ways: it does not start (cut short), it prints another version.
  const cut = join(work, "agent-cut");
  writeFileSync(cut, readFileSync(BINARY).subarray(0, 4096));
  pack("broken", cut);
  const wrong = join(work, "agent-wrong");
  writeFileSync(wrong, `#!/bin/sh\necho "agent 9.9.9 (commit 000000000000)"\n`, { mode: 0o755 });
  pack("wrong", wrong);
  // The next release, as far as the postinstall can tell: a program that prints its version.
  const next = join(work, "agent-next");
  writeFileSync(next, `#!/bin/sh\necho "agent 99.0.0 (commit 111111111111)"\n`, { mode: 0o755 });
  pack("next", next, "99.0.0");
  // A platform package of the right name and version holding another binary (a script that would pass the --version check).
  const swapped = join(work, "agent-swapped");
  writeFileSync(swapped, `#!/bin/sh\ntouch '${marker}'\necho "agent ${version} (commit 000000000000)"\n`, { mode: 0o755 });
  pack("marker", swapped);
}, 600_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.skipIf(!unix)("npm install -g with the postinstall", () => {
  const prefix = join(work, "global");
  const link = join(prefix, "bin", "agent");

  test("npm's agent is the binary itself, hard-linked from the platform package, and behaves as the binary", async () => {
    const installed = installGlobal(prefix, sets.good);
    expect(installed.postinstall).toBe("replaced");
    expect(installed.err).toBe("");
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(realpathSync(link)).toBe(realpathSync(join(prefix, "lib", PACKAGE_BIN)));
    expect(isElf(link)).toBe(true);
    const platformBinary = join(prefix, "lib", "node_modules", "@agent-runtime", `agent-${host!.key}`, "bin", "agent");
    expect(statSync(link).ino).toBe(statSync(platformBinary).ino);
    expect(statSync(link).mode & 0o111).toBe(0o111);
    expect(await run([link, "--version"])).toEqual({ code: 0, out: versionLine, err: "" });
    const bad = await run([link, "no-such-command"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("no-such-command");
    expect(await terminated(link)).toEqual(await terminated(BINARY));
  }, 120_000);

  test("agent update still refuses: the binary finds node_modules in its own path", async () => {
    const home = join(work, "update-home");
    mkdirSync(join(home, "config", "agent"), { recursive: true });
    writeFileSync(join(home, "config", "agent", "config.yaml"), 'updates: { manifest_url: "http://127.0.0.1:9/manifest.json" }\n');
    const proc = Bun.spawnSync([link, "update"], { cwd: work, env: { PATH: "/usr/bin:/bin", HOME: home, XDG_CONFIG_HOME: join(home, "config"), XDG_DATA_HOME: join(home, "data") }, stdout: "pipe", stderr: "pipe" });
    expect(proc.exitCode).not.toBe(0);
    expect(proc.stderr.toString()).toContain(`was installed with npm (${realpathSync(link)})`);
    expect(proc.stderr.toString()).toContain(`npm install -g ${MAIN}@latest`);
    expect(isElf(link)).toBe(true);
  });

  test("npm rebuild runs the postinstall again and leaves the binary", async () => {
    const rebuilt = npm(["rebuild", "-g", "--prefix", prefix]);
    expect(rebuilt.postinstall).toBe("already");
    expect(isElf(link)).toBe(true);
    expect(await run([link, "--version"])).toEqual({ code: 0, out: versionLine, err: "" });
  }, 120_000);

  test("an upgrade replaces the file again, and a downgrade back too; uninstall removes it", async () => {
    expect(installGlobal(prefix, sets.next).postinstall).toBe("replaced");
    expect(readFileSync(link, "utf8")).toStartWith("#!/bin/sh\necho \"agent 99.0.0");
    expect((await run([link, "--version"])).out).toBe("agent 99.0.0 (commit 111111111111)\n");
    expect(installGlobal(prefix, sets.good).postinstall).toBe("replaced");
    expect(isElf(link)).toBe(true);
    expect(await run([link, "--version"])).toEqual({ code: 0, out: versionLine, err: "" });
    npm(["uninstall", "-g", "--prefix", prefix, MAIN]);
    expect(existsSync(link)).toBe(false);
    expect(existsSync(join(prefix, "lib", "node_modules", "@agent-runtime", "agent"))).toBe(false);
  }, 180_000);
});

describe.skipIf(!unix)("the launcher stays where the postinstall does not replace it", () => {
  test("--ignore-scripts: the launcher runs the binary, with its exit codes and signals", async () => {
    const prefix = join(work, "ignore-scripts");
    const link = join(prefix, "bin", "agent");
    expect(installGlobal(prefix, sets.good, "--ignore-scripts").postinstall).toBeNull();
    expect(isLauncher(link)).toBe(true);
    expect(await run([link, "--version"])).toEqual({ code: 0, out: versionLine, err: "" });
    expect((await run([link, "no-such-command"])).code).toBe(2);
    expect(await terminated(link)).toEqual({ exitCode: null, signal: "SIGTERM" });
  }, 120_000);

  for (const [variant, what] of [
    ["broken", "does not start"],
    ["wrong", "prints another version"],
  ] as const) {
    test(`a platform binary that ${what} leaves the launcher, and the install succeeds quietly`, async () => {
      const prefix = join(work, `check-${variant}`);
      const link = join(prefix, "bin", "agent");
      const installed = installGlobal(prefix, sets[variant]);
      expect(installed.postinstall).toBe("check failed");
      expect(installed.err).toBe("");
      expect(installed.out).not.toMatch(/postinstall|error|warn/i);
      expect(isLauncher(link)).toBe(true);
      // The launcher runs whatever the platform package holds, as before this script existed.
      const ran = await run([link, "--version"]);
      if (variant === "broken") expect(ran.code).not.toBe(0);
      else expect(ran).toEqual({ code: 0, out: "agent 9.9.9 (commit 000000000000)\n", err: "" });
    }, 120_000);
  }

  test("a platform binary that is not the one the release packed (its checksum differs) is never run by the postinstall", async () => {
    const prefix = join(work, "swapped");
    const installed = installGlobal(prefix, [sets.good[0]!, sets.marker[1]!]);
    expect(installed.postinstall).toBe("checksum mismatch");
    expect(installed.err).toBe("");
    expect(existsSync(marker)).toBe(false);
    expect(isLauncher(join(prefix, "bin", "agent"))).toBe(true);
  }, 120_000);

  test("after a good install, an upgrade whose binary fails the check gets the new launcher, not the old binary", async () => {
    const prefix = join(work, "good-then-wrong");
    const link = join(prefix, "bin", "agent");
    expect(installGlobal(prefix, sets.good).postinstall).toBe("replaced");
    expect(installGlobal(prefix, sets.wrong).postinstall).toBe("check failed");
    expect(isLauncher(link)).toBe(true);
  }, 180_000);

  test("another package manager (npm's user agent says pnpm) leaves the launcher", () => {
    const prefix = join(work, "as-pnpm");
    expect(installGlobal(prefix, sets.good, "--user-agent", "pnpm/9.0.0 npm/? node/v20").postinstall).toBe("not npm");
    expect(isLauncher(join(prefix, "bin", "agent"))).toBe(true);
  }, 120_000);

  test("without the platform package there is nothing to put in place", () => {
    const prefix = join(work, "no-platform");
    expect(installGlobal(prefix, sets.good.slice(0, 1)).postinstall).toBe("no binary");
    expect(isLauncher(join(prefix, "bin", "agent"))).toBe(true);
  }, 120_000);
});

describe.skipIf(!unix)("a local install", () => {
  test("node_modules/.bin/agent and npm exec run the binary", async () => {
    const project = join(work, "project");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), '{ "name": "p", "version": "1.0.0", "private": true }\n');
    expect(npm(["install", ...sets.good], project).postinstall).toBe("replaced");
    const bin = join(project, "node_modules", ".bin", "agent");
    expect(realpathSync(bin)).toBe(realpathSync(join(project, PACKAGE_BIN)));
    expect(isElf(bin)).toBe(true);
    const exec = Bun.spawnSync(["npm", "exec", "--offline", "--", "agent", "--version"], { cwd: project, env: npmEnv(), stdout: "pipe", stderr: "pipe" });
    expect({ code: exec.exitCode, out: exec.stdout.toString() }).toEqual({ code: 0, out: versionLine });
  }, 120_000);

  test("when a hard link is refused, the binary is copied with its mode", async () => {
    const project = join(work, "project-copy");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), '{ "name": "p", "version": "1.0.0", "private": true }\n');
    npm(["install", "--ignore-scripts", ...sets.good], project);
    const pkg = join(project, "node_modules", "@agent-runtime", "agent");
    writeFileSync(join(work, "no-links.js"), 'require("node:fs").linkSync = () => { throw Object.assign(new Error("EXDEV"), { code: "EXDEV" }); };\n');
    const r = Bun.spawnSync(["node", "-r", join(work, "no-links.js"), "-e", 'console.log(require("./install.js").optimize())'], { cwd: pkg, env: { ...npmEnv(), npm_config_user_agent: "npm/11.0.0 node/v20.0.0 linux x64" }, stdout: "pipe", stderr: "pipe" });
    expect(r.stdout.toString()).toBe("replaced\n");
    const bin = join(project, "node_modules", ".bin", "agent");
    expect(isElf(bin)).toBe(true);
    const platformBinary = join(project, "node_modules", "@agent-runtime", `agent-${host!.key}`, "bin", "agent");
    expect(statSync(bin).ino).not.toBe(statSync(platformBinary).ino);
    expect(statSync(bin).mode & 0o777).toBe(statSync(platformBinary).mode & 0o777);
    expect(await run([bin, "--version"])).toEqual({ code: 0, out: versionLine, err: "" });
    // Nothing is left beside it.
    expect(readlinkSync(bin)).toBe("../@agent-runtime/agent/bin/agent.js");
    expect(Bun.spawnSync(["ls", "-A", join(pkg, "bin")]).stdout.toString()).toBe("agent.js\n");
  }, 120_000);
});

test("the launcher in the repository is a Node script with no dependencies", () => {
  const launcher = readFileSync(join(import.meta.dir, "..", "..", "npm", "agent", "bin", "agent.js"), "utf8");
  expect(launcher).toStartWith("#!/usr/bin/env node\n");
  const required = [...launcher.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]);
  expect(required.every((r) => r!.startsWith("node:") || r!.startsWith("../"))).toBe(true);
});
