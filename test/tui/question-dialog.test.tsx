// The question dialog alone: approvals (goal, extension) offer approve and reject-with-message; digits
// and arrows pick; the permission ask's four choices map to the four answers.
import { describe, expect, test } from "bun:test";
import { render } from "ink-testing-library";
import type { InterrogativeAnswer } from "../../src/agent/events.ts";
import { QuestionDialog } from "../../tui/components/question-dialog.tsx";

async function settle(frames: () => number, before: number) {
  for (let i = 0; i < 200 && frames() === before; i++) await Bun.sleep(5);
}

describe("question dialog", () => {
  test("a goal approval: Enter approves", async () => {
    const answers: InterrogativeAnswer[] = [];
    const ui = render(<QuestionDialog question={{ id: "q1", kind: "goal_approval", turn_id: "t", goal: "ship the release" }} more={1} onAnswer={(a) => answers.push(a)} active error={null} />);
    expect(ui.lastFrame()).toContain("Approve this goal? ship the release");
    expect(ui.lastFrame()).toContain("1 more question waiting");
    await Bun.sleep(20);
    ui.stdin.write("\r");
    for (let i = 0; i < 200 && answers.length === 0; i++) await Bun.sleep(5);
    expect(answers).toEqual([{ decision: "approve" }]);
  });

  test("an extension approval shows what it asks for; reject takes a message", async () => {
    const answers: InterrogativeAnswer[] = [];
    const ui = render(
      <QuestionDialog
        question={{ id: "q2", kind: "extension_approval", name: "lint", version: "1.2.0", description: "Runs the linter", origin: "project", path: ".agent/extensions/lint", capabilities: ["shell"], reason: "new extension" }}
        more={0}
        onAnswer={(a) => answers.push(a)}
        active
        error={null}
      />,
    );
    expect(ui.lastFrame()).toContain("Approve the extension lint 1.2.0 (project: .agent/extensions/lint)?");
    expect(ui.lastFrame()).toContain("capabilities: shell");
    await Bun.sleep(20);
    let n = ui.frames.length;
    ui.stdin.write("2");
    await settle(() => ui.frames.length, n);
    expect(ui.lastFrame()).toContain("message:");
    n = ui.frames.length;
    ui.stdin.write("too risky");
    await settle(() => ui.frames.length, n);
    ui.stdin.write("\r");
    for (let i = 0; i < 200 && answers.length === 0; i++) await Bun.sleep(5);
    expect(answers).toEqual([{ decision: "reject", message: "too risky" }]);
  });

  test("a permission ask: Down twice and Enter (in one read) is allow always in this project", async () => {
    const answers: InterrogativeAnswer[] = [];
    const ui = render(<QuestionDialog question={{ id: "q3", kind: "permission", turn_id: "t", tool: "shell", arguments: { command: "rm -rf build" }, reason: "no rule allows it" }} more={0} onAnswer={(a) => answers.push(a)} active error="the answer was not accepted: x" />);
    expect(ui.lastFrame()).toContain("Allow shell rm -rf build?");
    expect(ui.lastFrame()).toContain("the answer was not accepted: x");
    await Bun.sleep(20);
    // Three keys in one read: each must see what the one before did.
    ui.stdin.write("\x1b[B\x1b[B\r");
    for (let i = 0; i < 200 && answers.length === 0; i++) await Bun.sleep(5);
    expect(answers).toEqual([{ decision: "allow_always", scope: "project" }]);
  });
});
