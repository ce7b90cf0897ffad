// The gate with a sandbox (issue 35 item 2): sandboxed autonomy lets a command no rule decides run
// contained without a question, never past a deny or an ask rule; leaving the sandbox always asks (and so
// is denied in a headless run); accept_edits allows project edits; --allow/--deny rules join the pool.
import { describe, expect, test } from "bun:test";
import { PermissionRuleError } from "../../src/permissions/index.ts";
import { gateFor } from "./helpers.ts";

const on = { active: true, autonomy: "sandboxed", description: "workspace_write, no network" } as const;

describe("sandboxed autonomy", () => {
  test("a command no rule decides runs without a question, only while a sandbox really runs", async () => {
    expect(await (await gateFor({ sandbox: on })).check("shell", { command: "npm install" })).toEqual({ kind: "allow", rule: "sandboxed autonomy" });
    // Fallen back to off (no bubblewrap): the same command asks again.
    expect((await (await gateFor({ sandbox: { ...on, active: false } })).check("shell", { command: "npm install" })).kind).toBe("ask");
    expect((await (await gateFor({ sandbox: { ...on, autonomy: "ask" } })).check("shell", { command: "npm install" })).kind).toBe("ask");
  });

  test("deny rules win; the user's ask rules still ask; secret files still ask", async () => {
    const { check } = await gateFor({ sandbox: on, globalRules: "deny: [shell(rm:*)]\nask: [shell(git push:*)]\n", config: "permissions: { secret_files: [.env] }\n" });
    expect((await check("shell", { command: "ls && rm -rf x" })).kind).toBe("deny");
    expect((await check("shell", { command: "git push origin main" })).kind).toBe("ask");
    expect((await check("shell", { command: "cat .env" })).kind).toBe("ask");
    // Unreadable while a deny rule could match it: asked, not run.
    expect((await check("shell", { command: "case x in x) rm -rf y;; esac" })).kind).toBe("ask");
  });

  test("an unreadable command runs contained when no deny rule could match it", async () => {
    const { check } = await gateFor({ sandbox: on });
    expect((await check("shell", { command: "case x in x) echo y;; esac" })).kind).toBe("allow");
  });

  test("accept_edits (and sandboxed) allow editing project files, not files outside", async () => {
    const { check } = await gateFor({ sandbox: { ...on, autonomy: "accept_edits" } });
    expect((await check("edit", { path: "src/a.ts", old_string: "a", new_string: "b" })).kind).toBe("allow");
    expect((await check("write", { path: "/etc/passwd", content: "" })).kind).toBe("ask");
    expect((await check("shell", { command: "npm test" })).kind).toBe("ask");
  });
});

describe("leaving the sandbox", () => {
  test("always asks, naming the sandbox, even when a rule allows the command", async () => {
    const { check } = await gateFor({ sandbox: on, globalRules: "allow: [shell(npm:*)]\n" });
    const d = await check("shell", { command: "npm install", outside_sandbox: true });
    expect(d.kind).toBe("ask");
    expect(d.kind === "ask" && d.reason).toContain("OUTSIDE the sandbox (workspace_write, no network)");
    expect(d.kind === "ask" && d.suggestedRule).toBe("");
  });

  test("a deny rule denies the escape", async () => {
    const { check } = await gateFor({ sandbox: on, globalRules: "deny: [shell(curl:*)]\n" });
    expect((await check("shell", { command: "curl x", outside_sandbox: true })).kind).toBe("deny");
  });
});

describe("rules of one run", () => {
  test("--allow and --deny join the pool with their flag as origin; deny still beats allow", async () => {
    const { check } = await gateFor({ runRules: { allow: ["shell(make:*)", "shell"], deny: ["shell(make install)"] } });
    expect(await check("shell", { command: "make" })).toMatchObject({ kind: "allow" });
    expect(await check("shell", { command: "make install" })).toMatchObject({ kind: "deny", rule: "shell(make install) (--deny)" });
  });

  test("a bad rule is an error naming the flag; Claude Code's form names ours", async () => {
    const error = await gateFor({ runRules: { allow: ["Bash(npm run *)"] } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionRuleError);
    expect((error as Error).message).toBe("--allow:1:1: rule 'Bash(npm run *)': 'Bash(npm run *)' is Claude Code's rule form; ours is 'shell(npm run:*)'");
  });
});

describe("changing autonomy during the session", () => {
  test("setAutonomy takes effect at once; sandboxed needs a running sandbox", async () => {
    const { gate, check } = await gateFor({ sandbox: { ...on, autonomy: "ask" } });
    expect((await check("shell", { command: "make" })).kind).toBe("ask");
    gate.setAutonomy("sandboxed");
    expect(gate.autonomy).toBe("sandboxed");
    expect((await check("shell", { command: "make" })).kind).toBe("allow");
    expect((await check("edit", { path: "a.ts", old_string: "a", new_string: "b" })).kind).toBe("allow");
    gate.setAutonomy("ask");
    expect((await check("edit", { path: "a.ts", old_string: "a", new_string: "b" })).kind).toBe("ask");
    const off = await gateFor({ sandbox: { ...on, active: false, autonomy: "ask" } });
    expect(() => off.gate.setAutonomy("sandboxed")).toThrow("autonomy sandboxed needs a sandbox");
    expect(off.gate.autonomy).toBe("ask");
  });
});
