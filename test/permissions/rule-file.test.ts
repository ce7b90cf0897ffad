// Rule files on disk: every problem with file:line:column and what is allowed; "allow always" writes the
// project file atomically, keeping comments, and the session scope stays in memory.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadPermissionGate, PermissionRuleError } from "../../src/permissions/index.ts";
import { readRuleFile } from "../../src/permissions/rule-file.ts";
import { FakeClock } from "../fakes/fake-clock.ts";
import { configEnv } from "../helpers/config-env.ts";
import { gateFor } from "./helpers.ts";

async function loadError(rules: { global?: string; project?: string }): Promise<PermissionRuleError> {
  try {
    await gateFor({ globalRules: rules.global, projectRules: rules.project });
  } catch (error) {
    expect(error).toBeInstanceOf(PermissionRuleError);
    return error as PermissionRuleError;
  }
  throw new Error("the rules loaded without an error");
}

describe("invalid rule files", () => {
  test("each bad rule is reported at its file:line:column with what is allowed", async () => {
    const error = await loadError({
      project: ["allow:", "  - Bash(ls)", "  - 'shell(a && b)'", "  - web_fetch(example.com)", "  - web_search(cats)", "deny:", "  - mcp__x", "  - exit_tool", "  - shell(echo $HOME)", "  - edit(src/**"].join("\n"),
    });
    expect(error.problems.map((p) => `${p.file}:${p.line}:${p.column}`)).toEqual([
      ".agent/permissions.yaml:2:5",
      ".agent/permissions.yaml:3:12",
      ".agent/permissions.yaml:4:15",
      ".agent/permissions.yaml:5:15",
      ".agent/permissions.yaml:7:5",
      ".agent/permissions.yaml:8:5",
      ".agent/permissions.yaml:9:11",
      ".agent/permissions.yaml:10:16", // just after the text, where the `)` is missing
    ]);
    expect(error.message.split("\n")[0]).toBe(
      ".agent/permissions.yaml:2:5: rule 'Bash(ls)': 'Bash(ls)' is Claude Code's rule form; ours is 'shell(ls)'",
    );
    expect(error.problems[1]!.message).toContain("one simple command");
    expect(error.problems[2]!.message).toContain("write domain:example.com");
    expect(error.problems[3]!.message).toContain("takes no specifier");
    expect(error.problems[5]!.message).toContain("never needs permission");
    expect(error.problems[6]!.message).toContain("cannot contain $variables");
    expect(error.problems[7]!.message).toContain("must end with ')'");
  });

  test("structure problems: unknown keys, non-lists, non-strings, YAML syntax; both files reported at once", async () => {
    const error = await loadError({ global: "allow: [shell(ls)\n", project: "allow: shell(ls)\nmaybe: []\ndeny:\n  - 42\n" });
    const lines = error.message.split("\n");
    expect(lines[0]).toMatch(/^\/.*\/\.config\/agent\/permissions\.yaml:\d+:\d+: /);
    expect(lines.slice(1)).toEqual([
      ".agent/permissions.yaml:1:8: 'allow' must be a list of rules, e.g. - shell(git status)",
      ".agent/permissions.yaml:2:1: unknown key 'maybe'; allowed: allow, ask, deny",
      ".agent/permissions.yaml:4:5: a rule must be a string such as shell(git status), edit(src/**) or mcp__server__tool",
    ]);
  });

  test("a rule file that is not a map", async () => {
    const error = await loadError({ project: "- shell(ls)\n" });
    expect(error.message).toBe(".agent/permissions.yaml:1:1: the rule file must be a map with the lists allow, ask and deny");
  });

  test("a rule file over 4 MiB, or one that is not a regular file, is refused before it is read (issue 32 item 6)", () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-rule-file-"));
    const big = join(dir, "permissions.yaml");
    writeFileSync(big, `allow:\n${"  - read\n".repeat(600_000)}`);
    expect(() => readRuleFile(big)).toThrow(new RegExp(`^${big}:1:1: the rule file is \\d+ bytes, over the limit of 4194304 bytes \\(4 MiB\\); it was not read$`));
    const fifo = join(dir, "fifo.yaml");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    // A FIFO with no writer would block a plain open forever.
    expect(() => readRuleFile(fifo)).toThrow("the rule file is not a regular file; it was not read");
    expect(readRuleFile(join(dir, "absent.yaml"))).toEqual([]);
  });

  test("empty and comment-only files hold no rules", async () => {
    const t = await gateFor({ globalRules: "", projectRules: "# nothing yet\n" });
    expect((await t.check("shell", { command: "ls" })).kind).toBe("ask");
  });
});

describe("allow always", () => {
  test("project scope appends to .agent/permissions.yaml keeping comments, and applies at once and after a reload", async () => {
    const original = "# Team rules — keep this comment\nallow:\n  - shell(git status) # reviewed\ndeny:\n  - shell(rm:*)\n";
    const t = await gateFor({ projectRules: original });
    const file = join(t.env.project, ".agent", "permissions.yaml");
    chmodSync(file, 0o600);
    const req = t.req("shell", { command: "npm run build && git status" });
    expect(await t.gate.check(req)).toMatchObject({ kind: "ask", suggestedRule: "shell(npm run build)" });
    expect(await t.gate.allowAlways(req, "project")).toBe("shell(npm run build)");
    expect(await t.gate.check(req)).toMatchObject({ kind: "allow" });
    const text = readFileSync(file, "utf8");
    expect(text).toContain("# Team rules — keep this comment");
    expect(text).toContain("# reviewed");
    expect(text).toContain("  - shell(npm run build)\n");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(t.env.project, ".agent")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    // A fresh gate (a new session) reads the rule back from the file.
    const again = await loadPermissionGate({ loaded: t.env.load({ untrusted: "keep" }), projectRoot: t.env.project, globalConfigDir: t.globalDir, clock: new FakeClock(), home: t.env.home });
    expect(await again.check(req)).toMatchObject({ kind: "allow", rule: "shell(npm run build) (.agent/permissions.yaml:4:5), shell(git status) (.agent/permissions.yaml:3:5)" });
  });

  test("project scope creates the file (and .agent/) when there is none", async () => {
    const t = await gateFor();
    const req = t.req("web_fetch", { url: "https://docs.example.org/x" });
    expect(await t.gate.allowAlways(req, "project")).toBe("web_fetch(domain:docs.example.org)");
    const text = readFileSync(join(t.env.project, ".agent", "permissions.yaml"), "utf8");
    expect(text).toStartWith("# Permission rules");
    expect(text).toContain("allow:\n  - web_fetch(domain:docs.example.org)\n");
  });

  test("session scope is kept in memory only", async () => {
    const t = await gateFor();
    const req = t.req("edit", { path: "notes.md" });
    expect(await t.gate.allowAlways(req, "session")).toBe("edit(./notes.md)");
    expect((await t.gate.check(req)).kind).toBe("allow");
    expect((await t.gate.check(t.req("edit", { path: "other.md" }))).kind).toBe("ask");
    expect(existsSync(join(t.env.project, ".agent", "permissions.yaml"))).toBe(false);
  });

  test("nothing is added for a call an ask rule governs (allow cannot beat ask)", async () => {
    const t = await gateFor({ projectRules: "ask: [shell(git push:*)]\n" });
    const req = t.req("shell", { command: "git push" });
    expect(await t.gate.allowAlways(req, "project")).toBe("");
    expect((await t.gate.check(req)).kind).toBe("ask");
  });

  test("a rule file broken since the session started is not overwritten", async () => {
    const t = await gateFor({ projectRules: "allow: []\n" });
    const file = join(t.env.project, ".agent", "permissions.yaml");
    writeFileSync(file, "allow: [oops\n");
    await expect(t.gate.allowAlways(t.req("shell", { command: "make" }), "project")).rejects.toBeInstanceOf(PermissionRuleError);
    expect(readFileSync(file, "utf8")).toBe("allow: [oops\n");
  });

  test("a symlinked project rule file is skipped with a warning when follow_symlinks_for_configs is off", async () => {
    const env = configEnv();
    env.globalFile("daemon:\n  follow_symlinks_for_configs: false\n");
    env.file("elsewhere.yaml", "allow: [shell]\n");
    env.file(".agent/.keep", "");
    const { symlinkSync } = await import("node:fs");
    symlinkSync(join(env.project, "elsewhere.yaml"), join(env.project, ".agent", "permissions.yaml"));
    const gate = await loadPermissionGate({ loaded: env.load(), projectRoot: env.project, globalConfigDir: join(env.home, ".config", "agent"), clock: new FakeClock(), home: env.home });
    expect(gate.warnings).toEqual([".agent/permissions.yaml is a symlink and daemon.follow_symlinks_for_configs is off; its rules were skipped"]);
    expect((await gate.check({ tool: "shell", input: { command: "ls" }, cwd: env.project, projectRoot: env.project })).kind).toBe("ask");
  });
});
