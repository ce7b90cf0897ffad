// An extension as a person meets it, in the compiled binary in a real terminal (a PTY feeding
// @xterm/headless): `agent new` asks to approve it, Enter approves, its tool then runs in a turn behind
// the permission ask like a built-in; the next session does not ask again.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { TermSession } from "../tui/terminal.ts";
import { installSample } from "./fixtures/extensions/helpers.ts";

const open: TermSession[] = [];
const stops: (() => void)[] = [];

beforeAll(() => ensureBinary(), 180_000);

afterAll(async () => {
  for (const t of open) await t.close();
  for (const stop of stops) stop();
});

describe("extensions in the terminal UI (compiled binary)", () => {
  test("approve at start, the tool runs in a turn, the next session loads it without asking", async () => {
    const base = mkdtempSync(join(tmpdir(), "agent-ext-e2e-"));
    const root = join(base, "proj");
    mkdirSync(join(root, ".git"), { recursive: true });
    mkdirSync(join(root, ".agent"));
    writeFileSync(join(root, ".agent", "config.yaml"), 'providers:\n  offline: { kind: { type: catalog, name: test }, url: script.yaml }\ndefault_permission_matcher: standard\nplugins:\n  sample: { team: "blue" }\n');
    writeFileSync(join(root, "script.yaml"), `responses:
  - tool_calls:
      - { name: ext__sample__greet, arguments: { who: Ada } }
  - text: "Greeted Ada."
`);
    const dir = installSample(join(root, ".agent", "extensions", "sample"));
    const env = { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin", TERM: "xterm-256color" };
    const start = (args: string[]) => {
      const t = new TermSession([BINARY, ...args], { cwd: root, env });
      open.push(t);
      return t;
    };

    const t = start(["new"]);
    await t.waitFor("Approve the extension", "the extension approval dialog");
    expect(t.screen()).toContain("Approve the extension sample 1.0.0 (project:");
    // The directory may wrap onto the next line of the dialog.
    expect(t.screen()).toContain(`${dir.slice(dir.indexOf("/proj/"))})?`);
    expect(t.screen()).toContain("capabilities: tools, system_reminders");
    const id = /session (ses_[0-9a-z]+)/.exec(t.text())![1]!;
    stops.push(() => Bun.spawnSync([BINARY, "sessions", "stop", id], { cwd: root, env }));
    t.write("1");
    await t.waitFor("extension sample 1.0.0 loaded (2 tools, 1 reminder)", "the load notice");

    t.write("greet");
    await t.waitFor((s) => s.screen().includes("› greet"), "the editor to show the prompt");
    t.write("\r");
    await t.waitFor("Allow ext__sample__greet", "the permission ask for the extension tool");
    t.write("1");
    await t.waitFor("Greeted Ada.", "the answer after the tool ran");
    expect(t.text()).toContain('hello Ada; config {"team":"blue"}');
    t.write("\x04");
    expect(await t.proc.exited).toBe(0);
    Bun.spawnSync([BINARY, "sessions", "stop", id], { cwd: root, env });

    const next = start(["new"]);
    await next.waitFor("Type a message", "the prompt editor");
    expect(next.screen()).not.toContain("Approve the extension");
    const nextId = /session (ses_[0-9a-z]+)/.exec(next.text())![1]!;
    stops.push(() => Bun.spawnSync([BINARY, "sessions", "stop", nextId], { cwd: root, env }));
    next.write("\x04");
    expect(await next.proc.exited).toBe(0);
  }, 240_000);
});
