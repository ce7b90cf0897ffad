// Hook runs with real commands: the time limit kills the command and what it started, every run is a
// hook_ran record, errors reach the person as notices, and which config files' hooks run.
import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hooks } from "../../../src/agent/hooks/hooks.ts";
import { hookSources } from "../../../src/agent/hooks/sources.ts";
import type { EngineEvent } from "../../../src/agent/events.ts";
import { systemClock } from "../../../src/util/clock.ts";
import { processRunning } from "../../helpers/processes.ts";

function hooks(block: unknown, origin: "global" | "project" = "global") {
  const root = mkdtempSync(join(tmpdir(), "agent-hooks-"));
  const records: EngineEvent[] = [];
  const warnings: string[] = [];
  const h = new Hooks([{ origin, block }], { sessionId: "ses_1", projectRoot: root, env: () => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", SECRET_FREE: "yes" }), clock: systemClock, record: (e) => records.push(e), scrub: (t) => t.replaceAll("hunter2", "[redacted]") }, warnings);
  return { h, root, records, warnings };
}

describe("hook runs", () => {
  test("a command past its time limit is killed with what it started, recorded as timeout and told to the person", async () => {
    const { h, root, records } = hooks({ PreToolUse: [{ hooks: [{ type: "command", command: "sleep 31 & echo $! > child.pid; sleep 30", timeout: 0.3 }] }] });
    const v = await h.run("PreToolUse", { tool_name: "shell" }, { turnId: "t1", target: "shell", callId: "c1" });
    expect(v.blocked).toBe(false);
    const ran = records.find((e) => e.type === "hook_ran");
    expect(ran).toMatchObject({ type: "hook_ran", turn_id: "t1", hook: { event: "PreToolUse", outcome: "timeout", exit_code: null, call_id: "c1", tool: "shell" } });
    expect(records.find((e) => e.type === "notice")).toMatchObject({ level: "warning", message: expect.stringContaining("killed after its time limit of 0.3 s") });
    // The background child went with the group (this waits until it is gone; it would hang if it survived).
    const child = Number(await Bun.file(join(root, "child.pid")).text());
    while (processRunning(child)) await Bun.sleep(20);
  }, 10_000);

  test("the event arrives on stdin, in the project directory, with the child environment; messages are redacted", async () => {
    const { h, root, records } = hooks({ UserPromptSubmit: [{ hooks: [{ type: "command", command: 'input=$(cat); echo "$input|$PWD|$SECRET_FREE|$CLAUDE_PROJECT_DIR|hunter2" >&2; exit 2' }] }] });
    const v = await h.run("UserPromptSubmit", { prompt: "hi there" }, { turnId: "t1" });
    expect(v.blocked).toBe(true);
    const [json, cwd, env, dir, secret] = v.reason!.split("|");
    expect(JSON.parse(json!)).toEqual({ session_id: "ses_1", cwd: root, hook_event_name: "UserPromptSubmit", prompt: "hi there" });
    expect([cwd, env, dir, secret]).toEqual([root, "yes", root, "[redacted]"]);
    expect(records.find((e) => e.type === "hook_ran")).toMatchObject({ hook: { outcome: "blocked", exit_code: 2 } });
  });

  test("matchers choose the commands; an invalid one is skipped with a warning naming it", async () => {
    const { h, records, warnings } = hooks({
      PreToolUse: [
        { matcher: "Read", hooks: [{ type: "command", command: "exit 2" }] },
        { matcher: "Edit(", hooks: [{ type: "command", command: "exit 2" }] },
        { matcher: "Bash", hooks: [{ type: "command", command: "echo '{\"hookSpecificOutput\":{\"permissionDecision\":\"ask\",\"permissionDecisionReason\":\"check\"}}'" }] },
      ],
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("hooks.PreToolUse[1] (global config) is skipped: the matcher 'Edit(' is not a valid regular expression");
    const v = await h.run("PreToolUse", { tool_name: "shell" }, { turnId: "t", target: "shell" });
    expect(v).toEqual({ blocked: false, decision: "ask", reason: "check" });
    expect(records.filter((e) => e.type === "hook_ran")).toHaveLength(1);
  });
});

describe("hook sources", () => {
  const layer = (name: "global" | "project", hooksBlock: unknown) => ({ name, path: `/${name}.yaml`, upgraded: false, parsed: { path: "", format: "yaml" as const, text: "", data: { hooks: hooksBlock }, locate: () => undefined } });
  const trust = (active: boolean) => ({ active }) as never;

  test("the global config's and a trusted project's both run; an untrusted project's do not", () => {
    const layers = [layer("global", { Stop: [] }), layer("project", { PreToolUse: [] })];
    expect(hookSources({ layers, trust: trust(true) }).map((s) => s.origin)).toEqual(["global", "project"]);
    expect(hookSources({ layers, trust: trust(false) }).map((s) => s.origin)).toEqual(["global"]);
  });
});
