// The terminal UI of the compiled binary in a real terminal (a PTY feeding @xterm/headless), driven as a
// person would: `agent new`, type, read the streamed answer, answer a permission ask, detach, `agent
// continue` and see the history; kill -9 the daemon mid-turn and watch the banner and the recovery.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary } from "../helpers/binary.ts";
import { scriptedProject, send, Terminals, type TuiProject } from "./tui-harness.ts";

const terminals = new Terminals();
const project = (script: string) => scriptedProject(script);
const start = (p: TuiProject, args: string[]) => terminals.start(p, args);

beforeAll(() => ensureBinary(), 180_000);

afterAll(() => terminals.closeAll(), 60_000);

describe("agent new / continue in a terminal (compiled binary)", () => {
  test("chat with a streamed markdown answer, a permission ask, detach, and the history on continue", async () => {
    const p = project(`responses:
  - text: "Hello **there**. Steps:\\n\\n- first item\\n- second item\\n\\n\`\`\`sh\\necho code-block\\n\`\`\`"
  - text: "Running it."
    tool_calls:
      - { name: shell, arguments: { command: "echo hi-from-shell" } }
  - text: "The shell printed hi."
`);
    const t = start(p, ["new"]);
    await t.waitFor("Type a message", "the prompt editor");
    const id = terminals.sessionOf(t, p);

    await send(t, "say hello");
    await t.waitFor("second item", "the streamed answer");
    await t.waitFor("echo code-block", "the code block");
    expect(t.text()).toContain("Hello there.");
    expect(t.text()).not.toContain("**there**");
    expect(t.text()).toContain("• first item");
    await t.waitFor(/ready\s/, "the turn to end");

    await send(t, "run it");
    await t.waitFor("Allow shell echo hi-from-shell?", "the permission dialog");
    expect(t.screen()).toContain("1. Allow once");
    expect(t.screen()).toContain("4. Deny");
    t.write("1");
    await t.waitFor("The shell printed hi.", "the answer after the tool ran");
    expect(t.text()).toMatch(/shell echo hi-from-shell/);
    expect(t.text()).toMatch(/⎿ completed/);
    expect(t.text()).toContain("hi-from-shell");
    await t.waitFor(/ready\s/, "the turn to end");

    t.write("\x04");
    expect(await t.proc.exited).toBe(0);

    const again = start(p, ["continue"]);
    await again.waitFor("The shell printed hi.", "the history after continue");
    expect(again.text()).toContain("› say hello");
    expect(again.text()).toContain("› run it");
    expect(again.text()).toContain(`session ${id}`);
    // Prompt history is kept across views: Up brings back the last prompt of the first one.
    again.write("\x1b[A");
    await again.waitFor((s) => s.screen().includes("│ › run it"), "the previous view's prompt in the editor on Up");
    again.write("\x15");
    await again.waitFor((s) => s.screen().includes("│ › Type a message"), "an empty editor again");
    await send(again, "/help");
    await again.waitFor("/kill-session", "the help text");
    expect(again.text()).toContain("/exit");
    await send(again, "/nonsense");
    await again.waitFor("unknown_command", "the typed error of an unknown session command");
    // Ctrl+C detaches at once; a half-written prompt is left on the terminal, not lost.
    again.write("half a thought");
    await again.waitFor((s) => s.screen().includes("› half a thought"), "the draft in the editor");
    again.write("\x03");
    expect(await again.proc.exited).toBe(0);
    await again.waitFor("Unsent prompt (not sent):", "the draft left on the terminal");
    expect(again.text()).toMatch(/Unsent prompt \(not sent\):\s*\nhalf a thought/);
  }, 120_000);

  test("kill -9 of the daemon mid-turn: a banner, then the view restarts it and resyncs", async () => {
    const p = project(`responses:
  - text: "Let me check."
    tool_calls:
      - { name: shell, arguments: { command: "echo never-runs" } }
  - text: "Back after the restart."
`);
    const t = start(p, ["new", "check something"]);
    await t.waitFor("Allow shell echo never-runs?", "the permission ask that holds the turn");
    const id = terminals.sessionOf(t, p);
    const ready = JSON.parse(readFileSync(join(p.env.XDG_DATA_HOME!, "agent", "sessions", id, "daemon.json"), "utf8")) as { pid: number };
    process.kill(ready.pid, "SIGKILL");

    await t.waitFor("DISCONNECTED", "the disconnected banner");
    expect(t.screen()).toContain("The screen is not live.");
    await t.waitFor((s) => !s.screen().includes("DISCONNECTED") && /ready\s/.test(s.screen()), "the view to reconnect to a restarted daemon");
    const restarted = JSON.parse(readFileSync(join(p.env.XDG_DATA_HOME!, "agent", "sessions", id, "daemon.json"), "utf8")) as { pid: number };
    expect(restarted.pid).not.toBe(ready.pid);
    await t.waitFor("■ interrupted", "the interrupted turn in the replayed history");
    expect(t.screen()).not.toContain("Allow shell");

    await send(t, "go on");
    await t.waitFor("Back after the restart.", "an answer from the restarted daemon");
    // Blocks printed before the restart are not printed twice.
    expect(t.text().split("› check something").length - 1).toBe(1);
    t.write("\x04");
    expect(await t.proc.exited).toBe(0);
  }, 120_000);
});
