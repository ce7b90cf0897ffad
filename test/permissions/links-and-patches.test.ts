// Issue 32 items 2 and 3 at the gate: a symlink is judged where it leads as well as where it is (a link
// out of the project is the target's path), and a patch-form edit is judged file by file.
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadPermissionGate } from "../../src/permissions/index.ts";
import { FakeClock } from "../fakes/fake-clock.ts";
import { gateFor } from "./helpers.ts";

/** A project with `docs/notes.md` linked to `~/.ssh/id_rsa`, and `linked/` to `~/.ssh`. */
async function linkedProject(setup: Parameters<typeof gateFor>[0] = {}) {
  const t = await gateFor(setup);
  mkdirSync(join(t.env.home, ".ssh"), { recursive: true });
  writeFileSync(join(t.env.home, ".ssh", "id_rsa"), "KEY");
  mkdirSync(join(t.env.project, "docs"), { recursive: true });
  symlinkSync(join(t.env.home, ".ssh", "id_rsa"), join(t.env.project, "docs", "notes.md"));
  symlinkSync(join(t.env.home, ".ssh"), join(t.env.project, "linked"));
  writeFileSync(join(t.env.project, "math.ts"), "export const one = 1;\n");
  writeFileSync(join(t.env.project, "other.ts"), "export const two = 2;\n");
  return t;
}

const update = (path: string) => `*** Begin Patch\n*** Update File: ${path}\n@@\n-export const one = 1;\n+export const one = 2;\n*** End Patch\n`;

describe("symlinks leading out of the project", () => {
  test("read, grep and edit of a link to ~/.ssh/id_rsa are the target's path: the built-in read rule does not allow them", async () => {
    const t = await linkedProject();
    expect(await t.check("read", { path: "docs/notes.md" })).toEqual({
      kind: "ask",
      reason: "no rule allows `read` on `~/.ssh/id_rsa`, where `./docs/notes.md` leads through a symlink (outside the project)",
      suggestedRule: "read(~/.ssh/id_rsa)",
    });
    expect((await t.check("grep", { pattern: "K", path: "docs/notes.md" })).kind).toBe("ask");
    expect((await t.check("edit", { path: "docs/notes.md", old_string: "K", new_string: "L" })).kind).toBe("ask");
    // The project itself is still read freely.
    expect((await t.check("grep", { pattern: "K" })).kind).toBe("allow");
    expect((await t.check("read", { path: "math.ts" })).kind).toBe("allow");
  });

  test("a linked directory leading out counts too: glob, grep and read under it ask, and the reason names the target", async () => {
    const t = await linkedProject();
    const glob = await t.check("glob", { pattern: "*", path: "linked" });
    expect(glob).toMatchObject({ kind: "ask", suggestedRule: "glob(~/.ssh/**)" });
    expect((glob as { reason: string }).reason).toContain("`~/.ssh`, where `./linked` leads through a symlink");
    expect((await t.check("grep", { pattern: "K", path: "linked" })).kind).toBe("ask");
    expect((await t.check("read", { path: "linked/id_rsa" })).kind).toBe("ask");
  });

  test("a deny rule on the target denies the link, naming both; allowing takes a rule for the target as well", async () => {
    const t = await linkedProject({ globalRules: "deny:\n  - read(~/.ssh/**)\n" });
    expect(await t.check("read", { path: "docs/notes.md" })).toEqual({
      kind: "deny",
      reason: expect.stringContaining("`read` on `./docs/notes.md` (a symlink to `~/.ssh/id_rsa`) is denied by rule read(~/.ssh/**)"),
      rule: expect.stringContaining("read(~/.ssh/**)"),
    });
    const allowed = await linkedProject({ globalRules: "allow:\n  - read(~/.ssh/id_rsa)\n" });
    expect(await allowed.check("read", { path: "docs/notes.md" })).toMatchObject({ kind: "allow", rule: expect.stringContaining("read(~/.ssh/id_rsa)") });
  });

  test("allow always on a link adds the rule for its target, after which the same call is allowed", async () => {
    const t = await linkedProject();
    const req = t.req("read", { path: "docs/notes.md" });
    expect(await t.gate.allowAlways(req, "session")).toBe("read(~/.ssh/id_rsa)");
    expect((await t.gate.check(req)).kind).toBe("allow");
  });

  test("secret_files hold through links: a project file linked to a secret one asks, naming the target", async () => {
    const t = await gateFor({ config: "permissions:\n  secret_files: [\"~/.aws/credentials\"]\n" });
    mkdirSync(join(t.env.home, ".aws"), { recursive: true });
    writeFileSync(join(t.env.home, ".aws", "credentials"), "AKIA");
    symlinkSync(join(t.env.home, ".aws", "credentials"), join(t.env.project, "creds.txt"));
    const decision = await t.check("read", { path: "creds.txt" }, undefined);
    expect(decision.kind).toBe("ask");
    // Even a rule allowing every path on both sides does not let a secret file through a wildcard.
    const wide = await gateFor({ config: "permissions:\n  secret_files: [\"~/.aws/credentials\"]\n", globalRules: "allow:\n  - read(/**)\n" });
    mkdirSync(join(wide.env.home, ".aws"), { recursive: true });
    writeFileSync(join(wide.env.home, ".aws", "credentials"), "AKIA");
    symlinkSync(join(wide.env.home, ".aws", "credentials"), join(wide.env.project, "creds.txt"));
    expect(await wide.check("read", { path: "creds.txt" })).toMatchObject({ kind: "ask", reason: "`./creds.txt` (a symlink to `~/.aws/credentials`) is a secret file (permissions.secret_files)" });
  });

  test("a project reached through a symlinked path reads its own files freely; links in it still lead out", async () => {
    const t = await linkedProject();
    const alias = join(mkdtempSync(join(tmpdir(), "agent-alias-")), "proj");
    symlinkSync(t.env.project, alias);
    const gate = await loadPermissionGate({ loaded: t.env.load({ cwd: alias }), projectRoot: alias, globalConfigDir: t.globalDir, clock: new FakeClock(), home: t.env.home });
    const read = (path: string) => gate.check({ tool: "read", input: { path }, cwd: alias, projectRoot: alias });
    expect((await read("math.ts")).kind).toBe("allow");
    expect((await read(join(t.env.project, "math.ts"))).kind).toBe("allow");
    expect(await read("docs/notes.md")).toMatchObject({ kind: "ask", reason: expect.stringContaining("`~/.ssh/id_rsa`, where `./docs/notes.md` leads through a symlink") });
  });

  test("a deny rule wins over an ask rule whatever their order", async () => {
    const t = await linkedProject({ globalRules: "ask:\n  - edit(./math.ts)\n", projectRules: "deny:\n  - edit(./math.ts)\n" });
    expect((await t.check("edit", { path: "math.ts", old_string: "1", new_string: "2" })).kind).toBe("deny");
  });
});

describe("patch-form edits are checked file by file", () => {
  test("allow [edit] with deny [edit(math.ts)]: a patch changing math.ts is denied, naming the file", async () => {
    const t = await linkedProject({ globalRules: "allow: [edit]\ndeny:\n  - edit(math.ts)\n" });
    const d = await t.check("edit", { patch: update("math.ts") });
    expect(d.kind).toBe("deny");
    expect((d as { reason: string }).reason).toStartWith("the patch touches `./math.ts`; `edit` on `./math.ts` is denied by rule edit(math.ts)");
    // One denied file among allowed ones blocks the whole patch.
    const both = `*** Begin Patch\n*** Update File: other.ts\n@@\n-export const two = 2;\n+export const two = 3;\n*** Update File: math.ts\n@@\n-export const one = 1;\n+export const one = 2;\n*** End Patch\n`;
    expect((await t.check("edit", { patch: both })).kind).toBe("deny");
    expect((await t.check("edit", { patch: update("other.ts") })).kind).toBe("allow");
  });

  test("bypass_plus, where only deny rules count, denies the patch too", async () => {
    const t = await linkedProject({ config: "default_permission_matcher: bypass_plus\n", globalRules: "deny:\n  - edit(math.ts)\n" });
    expect((await t.check("edit", { patch: update("math.ts") })).kind).toBe("deny");
    expect((await t.check("edit", { patch: update("other.ts") })).kind).toBe("allow");
  });

  test("every path of the patch counts: added, deleted, and a move's source and destination; unified diffs too", async () => {
    const t = await linkedProject({ globalRules: "allow: [edit]\ndeny:\n  - edit(math.ts)\n" });
    const add = "*** Begin Patch\n*** Add File: sub/math.ts\n+x\n*** End Patch\n";
    const del = "*** Begin Patch\n*** Delete File: math.ts\n*** End Patch\n";
    const moveTo = "*** Begin Patch\n*** Update File: other.ts\n*** Move to: math2/math.ts\n*** End Patch\n";
    const moveFrom = "*** Begin Patch\n*** Update File: math.ts\n*** Move to: renamed.ts\n*** End Patch\n";
    const diff = "--- a/math.ts\n+++ b/math.ts\n@@ -1 +1 @@\n-export const one = 1;\n+export const one = 2;\n";
    for (const patch of [add, del, moveTo, moveFrom, diff]) expect((await t.check("edit", { patch })).kind).toBe("deny");
  });

  test("allow edit(**) allows a patch whose files all match; a file outside the pattern asks, naming it", async () => {
    const t = await linkedProject({ globalRules: "allow:\n  - edit(**)\n" });
    expect(await t.check("edit", { patch: update("math.ts") })).toMatchObject({ kind: "allow", rule: expect.stringContaining("edit(**)") });
    const narrow = await linkedProject({ globalRules: "allow:\n  - edit(./src/**)\n" });
    const patch = "*** Begin Patch\n*** Add File: src/a.ts\n+a\n*** Add File: b.ts\n+b\n*** End Patch\n";
    expect(await narrow.check("edit", { patch })).toEqual({ kind: "ask", reason: "the patch touches `./src/a.ts`, `./b.ts`; no rule allows `edit` on `./b.ts`", suggestedRule: "edit(./b.ts)" });
  });

  test("an ask rule on one file asks for the patch and names each file no rule allows", async () => {
    const t = await linkedProject({ globalRules: "ask:\n  - edit(./math.ts)\n" });
    const patch = `${update("math.ts").replace("*** End Patch\n", "")}*** Add File: new.ts\n+n\n*** End Patch\n`;
    const d = await t.check("edit", { patch });
    expect(d.kind).toBe("ask");
    expect((d as { reason: string }).reason).toContain("asks before `edit` on `./math.ts`");
    expect((d as { reason: string }).reason).toContain("no rule allows `edit` on `./new.ts`");
  });

  test("a patch through a link out of the project is judged at the link's target", async () => {
    const t = await linkedProject({ globalRules: "allow:\n  - edit(./**)\n" });
    const d = await t.check("edit", { patch: "*** Begin Patch\n*** Delete File: docs/notes.md\n*** End Patch\n" });
    expect(d).toMatchObject({ kind: "ask", reason: expect.stringContaining("`~/.ssh/id_rsa`, where `./docs/notes.md` leads through a symlink") });
  });

  test("a patch that cannot be read changes nothing: a bare allow lets the tool refuse it, else the gate asks", async () => {
    const open = await linkedProject({ globalRules: "allow: [edit]\n" });
    expect((await open.check("edit", { patch: "not a patch" })).kind).toBe("allow");
    const closed = await linkedProject();
    expect(await closed.check("edit", { patch: "not a patch" })).toEqual({ kind: "ask", reason: "the patch cannot be read, so the files it changes are not known", suggestedRule: "" });
  });
});
