// Issue 37 item 6: the e2e terminal harness stops every daemon its terminals started, also one whose
// session id never reached the screen (a test that failed before reading it left a daemon running).
import { beforeAll, describe, expect, test } from "bun:test";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { scriptedProject, Terminals } from "./tui-harness.ts";

beforeAll(() => ensureBinary(), 180_000);

describe("Terminals.closeAll", () => {
  test("stops the daemon of a session whose id the test never read", async () => {
    const terminals = new Terminals();
    const p = scriptedProject("responses:\n  - text: hello from the script\n");
    const t = terminals.start(p, ["new", "hi"]);
    await t.waitFor("hello from the script", "the scripted answer");
    const running = () => Bun.spawnSync([BINARY, "sessions", "list", "--json"], { cwd: p.root, env: p.env }).stdout.toString().trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
    expect(running().map((s) => s.daemon_running)).toEqual([true]);
    await terminals.closeAll();
    expect(running().map((s) => [s.daemon_running, s.state])).toEqual([[false, "stopped"]]);
  }, 90_000);
});
