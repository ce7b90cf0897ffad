// What hook answers do to a session's turn (scripted offline model, real hook commands): a blocked prompt
// never enters the conversation, a prompt hook's output is context, a Stop hook sends the model back once,
// a PreToolUse decision answers or asks the permission question.
import { describe, expect, test } from "bun:test";
import type { EngineEvent } from "../../../src/agent/events.ts";
import { makeProject, scriptedConfig, startSession } from "../harness.ts";

const hooksBlock = (event: string, command: string, matcher = "") =>
  `hooks:\n  ${event}:\n    - matcher: "${matcher}"\n      hooks:\n        - { type: command, command: ${JSON.stringify(command)} }\n`;

const userTexts = (events: readonly EngineEvent[]) => events.flatMap((e) => (e.type === "user_message" ? e.message.content.map((p) => (p.type === "text" ? p.text : "")) : []));

describe("hooks in the turn loop", () => {
  test("UserPromptSubmit exit 2: the prompt is not sent, the person is told, the turn ends hook_blocked", async () => {
    const p = makeProject(scriptedConfig(hooksBlock("UserPromptSubmit", `case "$(cat)" in *password*) echo "no passwords in prompts" >&2; exit 2;; esac`)), { "script.yaml": "responses:\n  - text: answered\n" });
    const s = await startSession(p);
    s.session.submit({ text: "my password is x" });
    await s.session.idle();
    expect(userTexts(s.events)).toEqual([]);
    expect(s.of("assistant_message_started")).toHaveLength(0);
    expect(s.of("notice").map((n) => n.message)).toContain("Your prompt was blocked by a UserPromptSubmit hook: no passwords in prompts");
    expect(s.of("turn_completed")[0]).toMatchObject({ stop_reason: "error", error: { code: "hook_blocked", message: "no passwords in prompts" } });
    // The next prompt goes through, and the model answers it.
    s.session.submit({ text: "hello" });
    await s.session.idle();
    expect(userTexts(s.events)).toEqual(["hello"]);
    await s.session.close();
  });

  test("UserPromptSubmit plain stdout is added to the prompt as context", async () => {
    const p = makeProject(scriptedConfig(hooksBlock("UserPromptSubmit", "echo branch: main")), { "script.yaml": "responses:\n  - text: answered\n" });
    const s = await startSession(p);
    s.session.submit({ text: "status?" });
    await s.session.idle();
    expect(userTexts(s.events)).toEqual(["status?", '<hook-context event="UserPromptSubmit">\nbranch: main\n</hook-context>']);
    await s.session.close();
  });

  test("a Stop hook's exit 2 sends the model back with its reason; stop_hook_active lets it end the next time", async () => {
    const stop = `case "$(cat)" in *'"stop_hook_active":false'*) echo "run the tests before you stop" >&2; exit 2;; esac`;
    const p = makeProject(scriptedConfig(hooksBlock("Stop", stop)), { "script.yaml": "responses:\n  - text: done\n  - text: tests pass, done\n" });
    const s = await startSession(p);
    s.session.submit({ text: "fix it" });
    await s.session.idle();
    expect(s.of("assistant_message_started")).toHaveLength(2);
    expect(userTexts(s.events)).toEqual(["fix it", '<hook-feedback event="Stop">\nrun the tests before you stop\n</hook-feedback>']);
    expect(s.of("turn_completed")).toMatchObject([{ stop_reason: "end_turn" }]);
    expect(s.of("hook_ran").map((e) => e.hook.outcome)).toEqual(["blocked", "allowed"]);
    await s.session.close();
  });

  test("PreToolUse allow answers the question a rule would ask; ask asks where the matcher allows (refused headless)", async () => {
    const call = `responses:\n  - tool_calls:\n      - { name: shell, arguments: { command: "echo from-the-model" } }\n  - text: done\n`;
    const allow = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`;
    const p1 = makeProject(scriptedConfig(`default_permission_matcher: standard\n${hooksBlock("PreToolUse", allow, "Bash")}`), { "script.yaml": call });
    const s1 = await startSession(p1);
    s1.session.submit({ text: "run it" });
    await s1.session.idle();
    expect(s1.of("tool_call_completed")[0]!.result).toMatchObject({ status: "completed", output: expect.stringContaining("from-the-model") });
    await s1.session.close();

    const ask = `echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"shell commands are reviewed"}}'`;
    const p2 = makeProject(scriptedConfig(hooksBlock("PreToolUse", ask, "shell")), { "script.yaml": call });
    const s2 = await startSession(p2);
    s2.session.submit({ text: "run it" });
    await s2.session.idle();
    expect(s2.of("tool_call_completed")[0]!.result).toMatchObject({ status: "denied", output: expect.stringContaining("a PreToolUse hook asks: shell commands are reviewed") });
    await s2.session.close();
  });
});
