// Issue 32 item 2 in the tools: the walkers (file catalog, glob, grep) never follow a link out of the
// project and say which they skipped; `.agentblock` and secret_files hold through links; the write tools
// refuse a link out; a file turned into a link after the catalog was built is not read through it.
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Secrets } from "../../src/permissions/secrets.ts";
import { createToolContext } from "../../src/tools/context.ts";
import { editToolFor } from "../../src/tools/edit.ts";
import { FileCatalog } from "../../src/tools/file-catalog.ts";
import { globTool } from "../../src/tools/glob.ts";
import { grepTool } from "../../src/tools/grep.ts";
import { readTool } from "../../src/tools/read.ts";
import { FakeClock } from "../fakes/fake-clock.ts";
import { call, makeContext, makeProject } from "./helpers.ts";

const CANARY = "CANARY-PRIVATE-KEY-5f2c";

/** A project beside a fake home whose ~/.ssh holds the canary; the project links to it twice. */
function attacked() {
  const home = mkdtempSync(join(tmpdir(), "agent-home-"));
  mkdirSync(join(home, ".ssh"));
  writeFileSync(join(home, ".ssh", "id_rsa"), `${CANARY}\n`);
  const root = makeProject({ "src/app.ts": "const key = 'KEY';\n", "docs/guide.md": "a guide\n" }, { git: true });
  symlinkSync(join(home, ".ssh", "id_rsa"), join(root, "docs", "notes.md"));
  symlinkSync(join(home, ".ssh"), join(root, "keys"));
  symlinkSync("../src/app.ts", join(root, "docs", "app-link.ts"));
  return { home, root };
}

describe("walkers skip links out of the project, and say so", () => {
  test("the catalog leaves out links to files and directories outside; a link inside is listed with its real path", () => {
    const { root } = attacked();
    const snap = new FileCatalog({ root, clock: new FakeClock() }).snapshot();
    expect(snap.files).toEqual(["docs/app-link.ts", "docs/guide.md", "src/app.ts"]);
    expect(snap.outsideLinks).toEqual(["docs/notes.md", "keys"]);
    expect(snap.links).toEqual({ "docs/app-link.ts": join(root, "src", "app.ts") });
  });

  test("grep over the project never returns the linked file's content and names the skipped links", async () => {
    const { root } = attacked();
    const r = await call(grepTool, { pattern: "." }, makeContext(root));
    expect(r.output).not.toContain(CANARY);
    expect(r.output).toContain("docs/guide.md:1: a guide");
    expect(r.output).toContain("docs/app-link.ts:1: const key");
    expect(r.output).toContain("[skipped 2 symlinks leading outside the project: `docs/notes.md`, `keys`. glob and grep search the project's own files only.]");
    const scoped = await call(grepTool, { pattern: "CANARY", path: "docs" }, makeContext(root));
    expect(scoped.output).toBe("No matches for `CANARY` in 2 files.\n[skipped 1 symlink leading outside the project: `docs/notes.md`. glob and grep search the project's own files only.]");
  });

  test("glob names the skipped links its pattern matches, and no others", async () => {
    const { root } = attacked();
    const md = await call(globTool, { pattern: "*.md" }, makeContext(root));
    expect(md.output).toBe("docs/guide.md\n[skipped 1 symlink leading outside the project: `docs/notes.md`. glob and grep search the project's own files only.]");
    expect((await call(globTool, { pattern: "*.ts" }, makeContext(root))).output).toBe("docs/app-link.ts\nsrc/app.ts");
  });

  test("searching a linked file or directory that leads out is refused with a message naming it", async () => {
    const { root } = attacked();
    for (const input of [{ pattern: "CANARY", path: "docs/notes.md" }, { pattern: "CANARY", path: "keys" }]) {
      const r = await call(grepTool, input, makeContext(root));
      expect(r.isError).toBe(true);
      expect(r.output).toBe(`\`${input.path}\` leads outside the project through a symlink; glob and grep search the project's files only, so it was not searched.`);
    }
    expect((await call(globTool, { pattern: "*", path: "keys" }, makeContext(root))).output).toContain("`keys` leads outside the project through a symlink");
  });

  test("a project opened through a symlinked path is not a link out of itself", async () => {
    const { root } = attacked();
    const alias = join(mkdtempSync(join(tmpdir(), "agent-alias-")), "proj");
    symlinkSync(root, alias);
    const snap = new FileCatalog({ root: alias, clock: new FakeClock() }).snapshot();
    expect(snap.files).toEqual(["docs/app-link.ts", "docs/guide.md", "src/app.ts"]);
    expect(snap.outsideLinks).toEqual(["docs/notes.md", "keys"]);
    const r = await call(grepTool, { pattern: "guide", path: "docs" }, makeContext(alias));
    expect(r.output).toContain("docs/guide.md:1: a guide");
    expect((await call(readTool, { path: "docs/app-link.ts" }, makeContext(alias))).output).toBe("1| const key = 'KEY';");
  });

  test("a file replaced by a link after the catalog was built is not read through it", async () => {
    const { home, root } = attacked();
    const ctx = makeContext(root);
    expect((await call(grepTool, { pattern: "guide" }, ctx)).output).toContain("docs/guide.md:1: a guide");
    rmSync(join(root, "docs", "guide.md"));
    symlinkSync(join(home, ".ssh", "id_rsa"), join(root, "docs", "guide.md"));
    const r = await call(grepTool, { pattern: "." }, ctx); // the cached catalog still lists docs/guide.md as a file
    expect(r.output).not.toContain(CANARY);
  });
});

describe(".agentblock and secret_files hold through links", () => {
  function blockedProject() {
    const root = makeProject({ "vault/.agentblock": "", "vault/key.txt": `${CANARY}\n`, "config/.agentblock": "prod.env\n", "config/prod.env": `${CANARY}\n`, "src/app.ts": "x\n" }, { git: true });
    symlinkSync("../vault/key.txt", join(root, "src", "key.txt"));
    symlinkSync("../config/prod.env", join(root, "src", "prod.env"));
    return root;
  }

  test("read, edit and a patch refuse a link to a blocked file, naming the .agentblock", async () => {
    const root = blockedProject();
    const ctx = makeContext(root);
    const read = await call(readTool, { path: "src/key.txt" }, ctx);
    expect(read).toMatchObject({ isError: true, output: expect.stringContaining("`src/key.txt` is blocked by `vault/.agentblock`") });
    expect((await call(readTool, { path: "src/prod.env" }, ctx)).output).toContain("is blocked by `config/.agentblock`");
    const edit = await call(editToolFor("replace"), { path: "src/key.txt", old_string: "CANARY", new_string: "x" }, ctx);
    expect(edit.output).toContain("blocked by `vault/.agentblock`");
    const patch = await call(editToolFor("patch"), { patch: "*** Begin Patch\n*** Delete File: src/prod.env\n*** End Patch\n" }, ctx);
    expect(patch.output).toContain("blocked by `config/.agentblock`");
    expect(readFileSync(join(root, "vault", "key.txt"), "utf8")).toBe(`${CANARY}\n`);
    expect(ctx.mutated).toEqual([]);
  });

  test("grep and glob leave out links to blocked files, also when the .agentblock itself is not in the catalog", async () => {
    const root = blockedProject();
    writeFileSync(join(root, ".gitignore"), "vault/\n"); // the blocked tree is ignored: its .agentblock is not listed
    const ctx = makeContext(root);
    const r = await call(grepTool, { pattern: "CANARY" }, ctx);
    expect(r.output).not.toContain(CANARY);
    expect((await call(globTool, { pattern: "*" }, ctx)).output.split("\n")).not.toContain("src/key.txt");
  });

  test("grep leaves out a project file linked to a secret file", async () => {
    const { home, root } = attacked();
    writeFileSync(join(root, "prod.pem"), `${CANARY}\n`);
    symlinkSync("prod.pem", join(root, "cert.txt"));
    const secrets = new Secrets([], ["*.pem"], { projectRoot: root, home });
    const ctx = createToolContext({ projectRoot: root, clock: new FakeClock(), supportsVision: false, isSecretFile: (p) => secrets.isSecretFile(p) });
    expect((await call(grepTool, { pattern: "CANARY" }, ctx)).output).not.toContain(CANARY);
    expect((await call(globTool, { pattern: "*.txt" }, ctx)).output).not.toContain("cert.txt");
  });
});
