// The check at launch: after `agent new/continue/exec` a detached `agent update --check` starts at most
// once a day (never blocking the command: the command ends while the manifest is still held), and the
// next run shows what it found.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Io } from "../../src/util/cli-command.ts";
import { afterCommand } from "../../src/update/launch.ts";
import { VERSION } from "../../src/version.ts";
import { startReleaseServer, TRUST_TEST_KEY, type ReleaseServer } from "./release-server.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "cli", "main.ts");
let server: ReleaseServer | null = null;
afterEach(() => {
  server?.stop();
  server = null;
});

function userEnv(updates: string) {
  const home = mkdtempSync(join(tmpdir(), "agent-launch-"));
  const env: Record<string, string> = { HOME: home, XDG_CONFIG_HOME: join(home, "config"), XDG_DATA_HOME: join(home, "data"), PATH: process.env.PATH ?? "/usr/bin:/bin", ...TRUST_TEST_KEY };
  mkdirSync(join(home, "config", "agent"), { recursive: true });
  writeFileSync(join(home, "config", "agent", "config.yaml"), `updates:\n${updates}`);
  const project = join(home, "project");
  mkdirSync(join(project, ".git"), { recursive: true });
  return { env, project, checkFile: join(home, "data", "agent", "update-check.json") };
}

function io(env: Record<string, string>, cwd: string): Io & { errors: string } {
  const o = { errors: "", out: () => {}, err: (t: string) => void (o.errors += t), isTty: false, cwd, env, stdin: async () => "" };
  return o;
}

describe("launch check", () => {
  test("starts at most once a day, only after local-use commands, only when on and configured", () => {
    const u = userEnv(`  manifest_url: "http://127.0.0.1:9/manifest.json"\n`);
    const started: string[][] = [];
    const start = (argv: string[]) => void started.push(argv);
    const now = new Date("2026-11-21T10:00:00Z");
    afterCommand(["print", "config-schema"], io(u.env, u.project), { now, start });
    expect(started).toHaveLength(0);
    afterCommand(["exec", "hi"], io(u.env, u.project), { now, start });
    expect(started).toHaveLength(1);
    expect(started[0]!.slice(-2)).toEqual(["update", "--check"]);
    afterCommand(["new"], io(u.env, u.project), { now: new Date("2026-11-21T20:00:00Z"), start });
    expect(started).toHaveLength(1);
    afterCommand(["continue"], io(u.env, u.project), { now: new Date("2026-11-22T10:00:01Z"), start });
    expect(started).toHaveLength(2);

    const off = userEnv(`  automatic_check: false\n  manifest_url: "http://127.0.0.1:9/manifest.json"\n`);
    afterCommand(["exec", "hi"], io(off.env, off.project), { now, start });
    const unset = userEnv(`  channel: stable\n`);
    afterCommand(["exec", "hi"], io(unset.env, unset.project), { now, start });
    expect(started).toHaveLength(2);
  });

  test("reading the updates block never runs the config's $(command) substitutions again", () => {
    const u = userEnv(`  manifest_url: "http://127.0.0.1:9/manifest.json"\n`);
    const marker = join(u.env.HOME!, "ran");
    writeFileSync(join(u.env.XDG_CONFIG_HOME!, "agent", "config.yaml"), `config_command_substitution: true\nintegrations: { search: { providers: { search_a: { key: "$(touch ${marker})" } } } }\nupdates:\n  manifest_url: "http://127.0.0.1:9/manifest.json"\n`);
    const started: string[][] = [];
    afterCommand(["exec", "hi"], io(u.env, u.project), { now: new Date(), start: (argv) => void started.push(argv) });
    expect(started).toHaveLength(1);
    expect(existsSync(marker)).toBe(false);
  });

  test("a real run: the command ends while the check waits on the manifest; the next run shows the result", async () => {
    server = startReleaseServer([{ version: "9.0.0", channel: "stable" }]);
    server.hold();
    const u = userEnv(`  manifest_url: "${server.manifestUrl}"\n`);
    const exec = async () => {
      const proc = Bun.spawn(["bun", MAIN, "exec", "--demo", "hello"], { cwd: u.project, env: u.env, stdout: "ignore", stderr: "pipe" });
      const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
      return { code, stderr };
    };
    const first = await exec();
    expect(first.code).toBe(0);
    expect(first.stderr).not.toContain("is available");
    // The background check has asked for the manifest and is still waiting: the command did not.
    for (let i = 0; !server.requests.includes("/manifest.json"); i++) {
      if (i > 400) throw new Error("the background check never asked for the manifest");
      await Bun.sleep(25);
    }
    server.release();
    for (let i = 0; !(existsSync(u.checkFile) && JSON.parse(readFileSync(u.checkFile, "utf8")).latest === "9.0.0"); i++) {
      if (i > 400) throw new Error("the background check never wrote its result");
      await Bun.sleep(25);
    }
    expect(JSON.parse(readFileSync(u.checkFile, "utf8"))).toMatchObject({ current: VERSION, latest: "9.0.0", available: true, channel: "stable" });
    const second = await exec();
    expect(second.stderr).toContain(`agent 9.0.0 is available (you have ${VERSION}); run \`agent update\` to install it`);
    // Checked less than a day ago: no second background check.
    expect(server.requests.filter((r) => r === "/manifest.json")).toHaveLength(1);
  }, 30000);
});
