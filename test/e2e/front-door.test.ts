// The front door: `agent` with no command, as a new user runs it. On a terminal with no provider
// configured it explains how to configure one, offers `agent setup` or the offline demo, and lands in a labelled demo
// session in the current directory; without a terminal it prints the help.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { TermSession } from "../tui/terminal.ts";

function freshMachine() {
  const base = mkdtempSync(join(tmpdir(), "agent-front-door-"));
  const root = join(base, "proj");
  mkdirSync(join(root, ".git"), { recursive: true });
  const env = { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin", TERM: "xterm-256color" };
  return { root, env };
}

const open: TermSession[] = [];
const cleanups: (() => void)[] = [];

beforeAll(() => ensureBinary(), 180_000);
afterAll(async () => {
  for (const t of open) await t.close();
  for (const c of cleanups) c();
}, 60_000);

describe("agent with no command", () => {
  test("on a terminal without a provider: the configuration help, the demo offer, and a labelled demo session", async () => {
    const m = freshMachine();
    const t = new TermSession([BINARY], { cwd: m.root, env: m.env });
    open.push(t);
    cleanups.push(() => {
      const listed = Bun.spawnSync([BINARY, "sessions", "list", "--json"], { cwd: m.root, env: m.env }).stdout.toString().trim();
      for (const row of listed.split("\n").filter(Boolean)) Bun.spawnSync([BINARY, "sessions", "stop", JSON.parse(row).id], { cwd: m.root, env: m.env });
    });
    await t.waitFor("No model provider is configured", "the no-provider explanation");
    expect(t.text()).toContain("a local OpenAI-compatible server");
    await t.waitFor("What now?", "the setup and demo offer");
    expect(t.screen()).toContain("Set up a provider now");
    t.write("\x1b[B"); // down to "Start the offline demo"
    await t.waitFor((s) => /●\s*Start the offline demo/.test(s.screen()), "the demo option selected");
    t.write("\r");
    await t.waitFor("offline demo: scripted answers", "the demo label in the session");
    await t.waitFor((s) => s.screen().includes("› "), "the prompt editor");
    t.write("hello");
    await t.waitFor((s) => s.screen().includes("› hello"), "the typed prompt");
    t.write("\r");
    await t.waitFor("This is the offline demo of agent", "the scripted answer");
    const listed = Bun.spawnSync([BINARY, "sessions", "list", "--json"], { cwd: m.root, env: m.env });
    expect(JSON.parse(listed.stdout.toString().trim().split("\n")[0]!)).toMatchObject({ project: m.root });
  }, 90_000);

  test("without a terminal it prints the help and exits 0", () => {
    const m = freshMachine();
    const r = Bun.spawnSync([BINARY], { cwd: m.root, env: m.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.toString()).toContain("Usage: agent <command> [flags]");
    expect(r.stdout.toString()).toContain("Run 'agent' with no command on a terminal");
  });
});
