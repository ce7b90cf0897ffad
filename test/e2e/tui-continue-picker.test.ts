// Issue 27 item 3: `agent continue` with no SESSION on a terminal lists the project's sessions (title,
// age, state) and opens the one picked; without a terminal it keeps continuing the newest.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { scriptedProject, Terminals } from "./tui-harness.ts";

const terminals = new Terminals();

beforeAll(() => ensureBinary(), 180_000);
afterAll(() => terminals.closeAll(), 60_000);

describe("agent continue without a session id (compiled binary, real terminal)", () => {
  test("lists the project's sessions with title, age and state, and opens the one picked", async () => {
    const p = scriptedProject("responses:\n  - text: \"done\"\n");
    const run = (...args: string[]) => Bun.spawnSync([BINARY, ...args], { cwd: p.root, env: p.env });
    const older = run("new", "--detach", "fix the login bug").stdout.toString().trim();
    const newer = run("new", "--detach", "write the release notes").stdout.toString().trim();
    expect(run("sessions", "stop", older).exitCode).toBe(0);

    const t = terminals.start(p, ["continue"]);
    await t.waitFor("Sessions of", "the session picker");
    await t.waitFor((s) => s.screen().includes("fix the login bug"), "both sessions listed");
    const screen = t.screen();
    const rowOf = (title: string) => screen.split("\n").find((l) => l.includes(title)) ?? "";
    expect(rowOf("write the release notes")).toMatch(/just now\s+running/);
    expect(rowOf("fix the login bug")).toMatch(/just now\s+stopped/);
    expect(screen).toContain("Enter continue the session");
    // Move the selection to the older (stopped) session and pick it: it is resumed.
    const lines = screen.split("\n");
    const selectedFirst = lines.findIndex((l) => l.startsWith("❯"));
    const target = lines.findIndex((l) => l.includes("fix the login bug"));
    t.write(target > selectedFirst ? "\x1b[B" : "\x1b[A");
    await t.waitFor((s) => (s.screen().split("\n").find((l) => l.startsWith("❯")) ?? "").includes("fix the login bug"), "the selection to move");
    t.write("\r");
    await t.waitFor(`session ${older}`, "the picked session's view");
    await t.waitFor((s) => /ready\s/.test(s.screen()), "the view to be live");
    terminals.sessionOf(t, p);
    // The resumed session's transcript is drawn once its history has arrived (the status line may say ready first).
    await t.waitFor((s) => s.text().includes("› fix the login bug"), "the picked session's transcript");
    t.write("\x04");
    expect(await t.proc.exited).toBe(0);

    // Esc cancels: nothing opens.
    const cancel = terminals.start(p, ["continue"]);
    await cancel.waitFor("Sessions of", "the session picker again");
    cancel.write("\x1b");
    await cancel.waitFor("Cancelled: no session was opened.", "the cancel line");
    expect(await cancel.proc.exited).toBe(130);

    // Without a terminal: the newest, as before (no picker).
    const piped = run("continue", "--detach");
    expect(piped.stdout.toString().trim()).toBe(newer);
  }, 120_000);
});
