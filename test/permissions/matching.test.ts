// Rule matching tables through the real gate (standard matcher): files on disk, deny beats ask beats
// allow, shell commands part by part, paths as written and through symlinks, domains, MCP names.
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gateFor } from "./helpers.ts";

const RULES = `
allow:
  - shell(git status)
  - shell(npm run test:*)
  - shell(ls:*)
  - shell(echo:*)
  - shell(git commit -m "a message")
  - edit(src/**)
  - read
  - web_fetch(domain:docs.example.com)
  - web_fetch(domain:*.trusted.example)
  - mcp__github__get_issue
  - mcp__files__*
ask:
  - shell(git push:*)
  - read(./config/**)
deny:
  - shell(rm:*)
  - read(~/.ssh/**)
  - edit(src/generated/**)
  - mcp__github__delete_repo
`;

describe("shell rules, part by part", async () => {
  const t = await gateFor({ projectRules: RULES });
  test.each([
    ["git status", "allow"],
    ["git  status", "allow"],
    ["git status --short", "ask"],
    ["npm run test", "allow"],
    ["npm run test -- --watch", "allow"],
    ["npm run test:unit", "ask"], // token prefix: `test:unit` is another script
    ["npm run build", "ask"],
    ["git commit -m 'a message'", "allow"], // quoting is normalised
    ["git commit -m 'other'", "ask"],
    ["git status && npm run test", "allow"],
    ["git status && rm -rf build", "deny"],
    ["git status; rm x", "deny"],
    ["ls | rm x", "deny"],
    ["ls || (echo hi && rm x)", "deny"],
    ["echo $(rm -rf /)", "deny"],
    ["echo `rm -rf /`", "deny"],
    ["echo 'rm -rf /'", "allow"], // quoted text is an argument, not a command
    ["echo \"rm -rf /\"", "allow"],
    ["echo rm\\ -rf", "allow"],
    ["sudo rm -rf /", "deny"], // wrappers are seen through by deny rules
    ["FOO=1 rm x", "deny"],
    ["timeout 5 rm x", "deny"],
    ["env -i PATH=/bin rm x", "deny"],
    ["xargs -n 1 rm < list", "deny"],
    ["bash -c 'git status && rm x'", "deny"],
    ["sh -c 'git status'", "allow"], // sh -c is transparent
    ["eval 'rm x'", "deny"],
    ["git push origin main", "ask"],
    ["git status && git push", "ask"],
    ["$CMD x", "ask"],
    ["rm $TARGET", "deny"],
    ["ls $DIR", "allow"], // prefix rules allow run-time arguments
    ["echo $((1+1))", "ask"], // unreadable -> ask, never allow
    ["echo 'unterminated", "ask"],
    ["bash -c \"$SCRIPT\"", "ask"],
  ])("%j -> %s", async (command, expected) => {
    expect((await t.check("shell", { command })).kind).toBe(expected as "allow" | "ask" | "deny");
  });

  test("a deny names the rule and where it is written; an ask suggests the exact command", async () => {
    const denied = await t.check("shell", { command: "git status && rm -rf build" });
    expect(denied).toMatchObject({ kind: "deny", rule: expect.stringContaining("shell(rm:*) (.agent/permissions.yaml:") });
    expect(denied.kind === "deny" && denied.reason).toContain("`rm -rf build`");
    expect(await t.check("shell", { command: "npm run build && cat 'a b'" })).toEqual({
      kind: "ask",
      reason: "no rule allows `npm run build`, `cat a b`",
      suggestedRule: "shell(npm run build), shell(cat 'a b')",
    });
    expect(await t.check("shell", { command: "git status && git push" })).toMatchObject({ kind: "ask", suggestedRule: "" });
  });

  test("a deny rule that a run-time word might satisfy asks instead of allowing", async () => {
    const g = await gateFor({ projectRules: "allow: [shell]\ndeny: [shell(git push --force:*)]\n" });
    expect((await g.check("shell", { command: "git push $FLAGS" })).kind).toBe("ask");
    expect((await g.check("shell", { command: "git push --force" })).kind).toBe("deny");
    expect((await g.check("shell", { command: "git push" })).kind).toBe("allow");
  });

  test("a bare `shell` allow lets unreadable commands run only when no shell rule could deny or ask", async () => {
    const open = await gateFor({ projectRules: "allow: [shell]\n" });
    expect((await open.check("shell", { command: "case x in a) b;; esac" })).kind).toBe("allow");
    const guarded = await gateFor({ projectRules: "allow: [shell]\ndeny: [shell(rm:*)]\n" });
    expect(await guarded.check("shell", { command: "case x in a) rm -rf /;; esac" })).toMatchObject({ kind: "ask", reason: expect.stringContaining("cannot be checked part by part") });
  });
});

test("with a PowerShell shell, commands are not split: specific rules ask, a bare allow with no shell deny/ask allows", async () => {
  const ps = "agent_behavior:\n  shell: { command: powershell }\n";
  const t = await gateFor({ config: ps, projectRules: "allow: [shell(Get-ChildItem)]\n" });
  expect(await t.check("shell", { command: "Get-ChildItem; Remove-Item x" })).toMatchObject({ kind: "ask", reason: expect.stringContaining("PowerShell") });
  const open = await gateFor({ config: ps, projectRules: "allow: [shell]\n" });
  expect((await open.check("shell", { command: "Get-ChildItem" })).kind).toBe("allow");
});

describe("path rules", async () => {
  const t = await gateFor({ projectRules: RULES });
  const p = (rel: string) => join(t.env.project, rel);
  test.each([
    ["edit", { path: "src/a.ts" }, "allow"],
    ["write", { path: "src/deep/b.ts" }, "allow"], // edit(...) covers write
    ["edit", { path: "src/generated/x.ts" }, "deny"],
    ["edit", { path: "README.md" }, "ask"],
    ["edit", { path: "../outside/src/a.ts" }, "ask"],
    ["read", { path: "anything.txt" }, "allow"],
    ["read", { path: "config/app.json" }, "ask"],
    ["read", { path: "~/.ssh/id_ed25519" }, "deny"],
    ["grep", { pattern: "x", path: "~/.ssh" }, "deny"], // read(...) covers search, and dir/** covers the dir
    ["glob", { pattern: "*" }, "allow"],
  ])("%s %j -> %s", async (tool, input, expected) => {
    expect((await t.check(tool, input)).kind).toBe(expected as "allow" | "ask" | "deny");
  });

  test("relative paths resolve against the call's cwd; absolute and ~ paths are matched as such", async () => {
    mkdirSync(p("src/sub"), { recursive: true });
    expect((await t.check("edit", { path: "x.ts" }, p("src/sub"))).kind).toBe("allow");
    expect((await t.check("edit", { path: p("src/x.ts") })).kind).toBe("allow");
    expect((await t.check("read", { path: join(t.env.home, ".ssh", "config") })).kind).toBe("deny");
  });

  test("a symlink cannot smuggle a path past a rule: deny checks the real path, allow needs both", async () => {
    mkdirSync(join(t.env.home, ".ssh"), { recursive: true });
    writeFileSync(join(t.env.home, ".ssh", "id_rsa"), "KEY");
    mkdirSync(p("src"), { recursive: true });
    symlinkSync(join(t.env.home, ".ssh", "id_rsa"), p("src/innocent.txt"));
    expect((await t.check("read", { path: "src/innocent.txt" })).kind).toBe("deny");
    symlinkSync("/etc/hostname", p("src/host-link"));
    expect((await t.check("edit", { path: "src/host-link" })).kind).toBe("ask");
  });

  test("the suggested rule names the file, project-relative", async () => {
    expect(await t.check("edit", { path: "docs/guide.md" })).toEqual({ kind: "ask", reason: "no rule allows `edit` on `./docs/guide.md`", suggestedRule: "edit(./docs/guide.md)" });
  });
});

describe("web_fetch, MCP and other tools", async () => {
  const t = await gateFor({ projectRules: RULES });
  test.each([
    ["web_fetch", { url: "https://docs.example.com/page" }, "allow"],
    ["web_fetch", { url: "https://evil.docs.example.com/page" }, "ask"], // exact host unless *.
    ["web_fetch", { url: "https://api.trusted.example/x" }, "allow"],
    ["web_fetch", { url: "https://trusted.example/x" }, "ask"],
    ["web_fetch", { url: "not a url" }, "ask"],
    ["web_search", { query: "x" }, "ask"],
    ["mcp__github__get_issue", {}, "allow"],
    ["mcp__github__create_issue", {}, "ask"],
    ["mcp__github__delete_repo", {}, "deny"],
    ["mcp__files__read_file", {}, "allow"],
    ["mcp__filesystem__read_file", {}, "ask"],
    ["progress_update", { text: "x" }, "allow"], // the engine's own tools need no permission
    ["exit_tool", {}, "allow"],
  ])("%s %j -> %s", async (tool, input, expected) => {
    expect((await t.check(tool, input)).kind).toBe(expected as "allow" | "ask" | "deny");
  });

  test("suggestions: the domain for web_fetch, the exact MCP tool", async () => {
    expect(await t.check("web_fetch", { url: "https://news.example.org/a" })).toMatchObject({ suggestedRule: "web_fetch(domain:news.example.org)" });
    expect(await t.check("mcp__github__create_issue", {})).toMatchObject({ suggestedRule: "mcp__github__create_issue" });
  });
});

describe("layers", () => {
  test("a global deny beats a project allow, and a project deny beats a global allow", async () => {
    const t = await gateFor({ globalRules: "deny: [shell(curl:*)]\nallow: [shell(make)]\n", projectRules: "allow: [shell(curl:*)]\ndeny: [shell(make)]\n" });
    expect(await t.check("shell", { command: "curl https://x" })).toMatchObject({ kind: "deny", rule: expect.stringContaining("permissions.yaml:1:") });
    expect((await t.check("shell", { command: "make" })).kind).toBe("deny");
  });

  test("ask beats allow across layers", async () => {
    const t = await gateFor({ globalRules: "ask: [edit]\n", projectRules: "allow: [edit(src/**)]\n" });
    expect((await t.check("edit", { path: "src/a.ts" })).kind).toBe("ask");
  });
});
