// What a hook's exit code and output mean (Claude Code's rules), and how several hooks' verdicts combine.
import { describe, expect, test } from "bun:test";
import { hookVerdict } from "../../../src/agent/hooks/output.ts";
import { combine } from "../../../src/agent/hooks/hooks.ts";
import type { CommandRun } from "../../../src/agent/hooks/run-command.ts";

const run = (exitCode: number | null, stdout = "", stderr = "", more: Partial<CommandRun> = {}): CommandRun => ({ exitCode, stdout, stderr, timedOut: false, ...more });

describe("hook output", () => {
  test("exit 2 blocks with stderr as the reason", () => {
    expect(hookVerdict("PreToolUse", run(2, "ignored", "no rm -rf here\n"), 60)).toEqual({ outcome: "blocked", reason: "no rm -rf here" });
    expect(hookVerdict("Stop", run(2), 60).reason).toContain("gave no reason");
  });

  test("another exit code is an error for the person, not a block", () => {
    expect(hookVerdict("PreToolUse", run(1, "", "jq: not found"), 60)).toEqual({ outcome: "error", userMessage: "exited with code 1: jq: not found" });
    expect(hookVerdict("PreToolUse", run(null, "", "", { timedOut: true }), 5)).toEqual({ outcome: "timeout", userMessage: "killed after its time limit of 5 s" });
    expect(hookVerdict("PreToolUse", run(null, "", "", { startError: "ENOENT" }), 5).outcome).toBe("error");
  });

  test("PreToolUse permissionDecision allow / deny / ask, with the reason", () => {
    const json = (decision: string) => JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: decision, permissionDecisionReason: `said ${decision}` } });
    expect(hookVerdict("PreToolUse", run(0, json("allow")), 60)).toEqual({ outcome: "allowed", decision: "allow", reason: "said allow" });
    expect(hookVerdict("PreToolUse", run(0, json("deny")), 60)).toEqual({ outcome: "blocked", decision: "deny", reason: "said deny" });
    expect(hookVerdict("PreToolUse", run(0, json("ask")), 60)).toEqual({ outcome: "ask", decision: "ask", reason: "said ask" });
    // Claude Code's older fields.
    expect(hookVerdict("PreToolUse", run(0, JSON.stringify({ decision: "block", reason: "old form" })), 60)).toEqual({ outcome: "blocked", decision: "deny", reason: "old form" });
    expect(hookVerdict("PreToolUse", run(0, JSON.stringify({ decision: "approve" })), 60).decision).toBe("allow");
  });

  test("decision block on the other events; additionalContext and systemMessage", () => {
    expect(hookVerdict("Stop", run(0, JSON.stringify({ decision: "block", reason: "tests fail" })), 60)).toEqual({ outcome: "blocked", reason: "tests fail" });
    expect(hookVerdict("PostToolUse", run(0, JSON.stringify({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "formatted" }, systemMessage: "ran prettier" })), 60)).toEqual({
      outcome: "allowed",
      context: "formatted",
      userMessage: "ran prettier",
    });
  });

  test("plain stdout is context for UserPromptSubmit and SessionStart only; broken JSON is plain text", () => {
    expect(hookVerdict("UserPromptSubmit", run(0, "branch: main\n"), 60)).toEqual({ outcome: "allowed", context: "branch: main" });
    expect(hookVerdict("SessionStart", run(0, "{not json"), 60)).toEqual({ outcome: "allowed", context: "{not json" });
    expect(hookVerdict("PreToolUse", run(0, "just talking"), 60)).toEqual({ outcome: "allowed" });
    expect(hookVerdict("PreToolUse", run(0, "[1,2]"), 60)).toEqual({ outcome: "allowed" });
  });

  test("combined: a block wins, deny over ask over allow, contexts joined", () => {
    expect(combine([{ outcome: "allowed", decision: "allow" }, { outcome: "blocked", reason: "no" }])).toEqual({ blocked: true, decision: "allow", reason: "no" });
    expect(combine([{ outcome: "allowed", decision: "allow", reason: "fine" }, { outcome: "ask", decision: "ask", reason: "check" }])).toEqual({ blocked: false, decision: "ask", reason: "check" });
    expect(combine([{ outcome: "allowed", context: "a" }, { outcome: "allowed", context: "b" }])).toEqual({ blocked: false, context: "a\nb" });
  });
});
