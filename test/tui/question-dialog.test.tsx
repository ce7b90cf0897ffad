// The question dialog alone: approvals (goal, extension) offer approve and reject-with-message; digits
// and arrows pick; the permission ask's four choices map to the four answers; a patch-form edit is asked
// about by the files it touches.
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

  test("a permission ask shows the rule each 'allow always' writes", () => {
    const ui = render(<QuestionDialog question={{ id: "q5", kind: "permission", turn_id: "t", tool: "shell", arguments: { command: "npm test" }, reason: "no rule allows `npm test`", suggested_rule: "shell(npm test)" }} more={0} onAnswer={() => {}} active error={null} />);
    expect(ui.lastFrame()).toContain("2. Allow always in this session: shell(npm test)");
    expect(ui.lastFrame()).toContain("3. Allow always in this project (adds shell(npm test) to .agent/permissions.yaml)");
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

  const patchAsk = (patch: string) => (
    <QuestionDialog question={{ id: "q4", kind: "permission", turn_id: "t", tool: "edit", arguments: { patch }, reason: "no rule allows it" }} more={0} onAnswer={() => {}} active error={null} />
  );

  test("a patch-form edit is titled by every file it touches (a move by both names)", () => {
    const patch = "*** Begin Patch\n*** Update File: src/math.ts\n@@\n-export const one = 1;\n+export const one = 11;\n*** Add File: docs/notes.md\n+hello\n*** Update File: old.ts\n*** Move to: new.ts\n@@\n-a\n+b\n*** End Patch\n";
    expect(render(patchAsk(patch)).lastFrame()).toContain("Allow edit src/math.ts, docs/notes.md, old.ts, new.ts (patch)?");
    const diff = "--- a/lib/x.ts\n+++ b/lib/x.ts\n@@ -1 +1 @@\n-x\n+y\n";
    expect(render(patchAsk(diff)).lastFrame()).toContain("Allow edit lib/x.ts (patch)?");
  });

  test("a long list says how many more files; a patch that does not parse says so", () => {
    const files = Array.from({ length: 30 }, (_, i) => `*** Add File: src/generated/file-${i}.ts\n+x\n`).join("");
    const frame = render(patchAsk(`*** Begin Patch\n${files}*** End Patch\n`)).lastFrame()!;
    // The title wraps in the dialog's box: the parts are checked, not the one line.
    expect(frame).toContain("Allow edit src/generated/file-0.ts, src/generated/file-1.ts, src/generated/file-2.ts and 27 more");
    expect(frame).toContain("(patch)?");
    expect(render(patchAsk("not a patch")).lastFrame()).toContain("Allow edit (a patch that does not parse)?");
  });
});
