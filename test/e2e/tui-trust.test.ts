// The trust dialog of the compiled binary in a real terminal: `agent new` in a project whose config
// starts a program shows the command line before anything starts; not now opens the session without it
// and the conversation says so; trust starts it and is remembered.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { scriptedProject, Terminals } from "./tui-harness.ts";

const terminals = new Terminals();

beforeAll(() => ensureBinary(), 180_000);
afterAll(() => terminals.closeAll(), 60_000);

function projectWithServer() {
  const p = scriptedProject('responses:\n  - text: "hello"\n');
  const marker = join(p.root, "marker");
  writeFileSync(
    join(p.root, ".agent", "config.yaml"),
    `providers:\n  offline: { kind: { type: catalog, name: test }, url: script.yaml }\nmcp_servers:\n  probe: { transport: stdio, command: sh, args: ["-c", "touch ${marker}; exec cat"] }\n`,
  );
  return { p, marker };
}

describe("project trust dialog (compiled binary, real terminal)", () => {
  test("lists the command line; not now starts the session without it and says so", async () => {
    const { p, marker } = projectWithServer();
    const t = terminals.start(p, ["new"]);
    await t.waitFor("is not trusted yet. It wants to:", "the trust dialog");
    expect(t.screen()).toContain(`tool server 'probe' runs: sh -c 'touch ${marker}; exec cat'`);
    expect(t.screen()).toContain("2. Not now");
    t.write("2");
    await t.waitFor("Type a message", "the conversation view");
    terminals.sessionOf(t, p);
    await t.waitFor("started without: tool server 'probe'", "the notice that says what was left out");
    expect(t.text()).toContain("Not trusted: the session starts without them.");
    expect(existsSync(marker)).toBe(false);
    t.write("\x04");
    expect(await t.proc.exited).toBe(0);
    expect(existsSync(marker)).toBe(false);
  });

  test("trust starts the server and is remembered: the next session does not ask", async () => {
    const { p, marker } = projectWithServer();
    const t = terminals.start(p, ["new"]);
    await t.waitFor("is not trusted yet. It wants to:", "the trust dialog");
    t.write("1");
    await t.waitFor("Type a message", "the conversation view");
    terminals.sessionOf(t, p);
    await t.waitFor(() => existsSync(marker), "the tool server to start");
    t.write("\x04");
    expect(await t.proc.exited).toBe(0);
    const list = Bun.spawnSync([BINARY, "trust", "--list"], { cwd: p.root, env: p.env, stdout: "pipe" });
    expect(list.stdout.toString()).toMatch(new RegExp(`^trusted\\s+${p.root}`));
    const again = terminals.start(p, ["new"]);
    await again.waitFor("Type a message", "the conversation view without a dialog");
    terminals.sessionOf(again, p);
    expect(again.text()).not.toContain("It wants to:");
    again.write("\x04");
    expect(await again.proc.exited).toBe(0);
  });
});
