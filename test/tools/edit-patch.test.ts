import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { editToolFor } from "../../src/tools/edit.ts";
import { call, makeContext, makeProject } from "./helpers.ts";

const edit = editToolFor("patch");
const APP = "function start() {\n  const a = 1;\n  const b = 2;\n  return a + b;\n}\n";

describe("edit (patch)", () => {
  test("add, update with move, delete in one atomic patch", async () => {
    const root = makeProject({ "src/app.ts": APP, "src/old.ts": "x\n" });
    const ctx = makeContext(root);
    const patch = [
      "*** Begin Patch",
      "*** Add File: src/new.ts",
      "+hello",
      "*** Update File: src/app.ts",
      "*** Move to: src/main.ts",
      "@@ function start() {",
      "   const a = 1;",
      "-  const b = 2;",
      "+  const b = 3;",
      "   return a + b;",
      "*** Delete File: src/old.ts",
      "*** End Patch",
    ].join("\n");
    const r = await call(edit, { patch }, ctx);
    expect(r.output).toBe("Applied the patch:\nA src/new.ts (1 lines)\nR src/app.ts -> src/main.ts\nD src/old.ts");
    expect(readFileSync(join(root, "src/new.ts"), "utf8")).toBe("hello\n");
    expect(readFileSync(join(root, "src/main.ts"), "utf8")).toBe(APP.replace("b = 2", "b = 3"));
    expect(existsSync(join(root, "src/app.ts"))).toBe(false);
    expect(existsSync(join(root, "src/old.ts"))).toBe(false);
    expect(ctx.mutated.sort()).toEqual(["src/app.ts", "src/main.ts", "src/new.ts", "src/old.ts"].map((p) => join(root, p)));
  });

  test("a unified diff applies too", async () => {
    const root = makeProject({ "app.ts": APP });
    const diff = "--- a/app.ts\n+++ b/app.ts\n@@ -2,3 +2,3 @@\n   const a = 1;\n-  const b = 2;\n+  const b = 4;\n   return a + b;\n";
    expect((await call(edit, { patch: diff }, makeContext(root))).output).toBe("Applied the patch:\nM app.ts (1 hunk)");
    expect(readFileSync(join(root, "app.ts"), "utf8")).toBe(APP.replace("b = 2", "b = 4"));
  });

  test("a hunk that does not match names the file, hunk, patch line and closest line, and changes nothing", async () => {
    const root = makeProject({ "app.ts": APP, "other.ts": "a\n" });
    const patch = [
      "*** Begin Patch",
      "*** Update File: other.ts",
      "@@",
      "-a",
      "+b",
      "*** Update File: app.ts",
      "@@",
      "   const a = 1;",
      "-  const c = 2;",
      "+  const c = 3;",
      "*** End Patch",
    ].join("\n");
    const r = await call(edit, { patch }, makeContext(root));
    expect(r.isError).toBe(true);
    expect(r.output).toBe(
      'hunk 1 of app.ts (patch line 7): its 2 context and removed lines were not found in the file. The closest line to "  const a = 1;" is 2:   const a = 1; ' +
        "Read the file again and copy the context lines exactly.\nNothing was changed.",
    );
    expect(readFileSync(join(root, "other.ts"), "utf8")).toBe("a\n");
  });

  test("syntax errors and file-state errors are precise", async () => {
    const root = makeProject({ "app.ts": APP });
    const ctx = makeContext(root);
    const noEnd = await call(edit, { patch: "*** Begin Patch\n*** Delete File: app.ts\n" }, ctx);
    expect(noEnd.output).toBe('The patch could not be parsed: patch line 2: the patch must end with "*** End Patch". Nothing was changed.');
    const badLine = await call(edit, { patch: "*** Begin Patch\n*** Update File: app.ts\n@@\n*x\n*** End Patch" }, ctx);
    expect(badLine.output).toBe('The patch could not be parsed: patch line 4: a hunk line must start with " ", "-" or "+", got: *x Nothing was changed.');
    const exists = await call(edit, { patch: "*** Begin Patch\n*** Add File: app.ts\n+x\n*** End Patch" }, ctx);
    expect(exists.output).toBe('Add File app.ts: the file already exists; use "*** Update File:" to change it.\nNothing was changed.');
    const missing = await call(edit, { patch: "*** Begin Patch\n*** Delete File: gone.ts\n*** End Patch" }, ctx);
    expect(missing.output).toStartWith("Delete File gone.ts: No such file: `gone.ts`.");
    const header = await call(edit, { patch: "*** Begin Patch\n*** Update File: app.ts\n@@ function stop() {\n-x\n*** End Patch" }, ctx);
    expect(header.output).toBe(
      'hunk 1 of app.ts (patch line 3): the @@ line "function stop() {" was not found after line 0. The closest line is 1: function start() {\nNothing was changed.',
    );
    expect(readFileSync(join(root, "app.ts"), "utf8")).toBe(APP);
  });

  test("the result carries the change as numbered hunks for the screen: one file as `diff`, several as `diffs` with paths", async () => {
    const root = makeProject({ "app.ts": APP, "b.ts": "x\n" });
    const one = await call(edit, { patch: "*** Begin Patch\n*** Update File: app.ts\n@@\n   const a = 1;\n-  const b = 2;\n+  const b = 5;\n*** End Patch" }, makeContext(root));
    expect(one.metadata?.diff).toEqual({ hunks: [{ old_start: 1, new_start: 1, lines: [" function start() {", "   const a = 1;", "-  const b = 2;", "+  const b = 5;", "   return a + b;", " }"] }] });
    const two = await call(edit, { patch: "*** Begin Patch\n*** Update File: b.ts\n@@\n-x\n+y\n*** Add File: c.ts\n+new\n*** End Patch" }, makeContext(root));
    expect(two.metadata?.diff).toBeUndefined();
    expect(two.metadata?.diffs).toEqual([
      { path: "b.ts", hunks: [{ old_start: 1, new_start: 1, lines: ["-x", "+y"] }] },
      { path: "c.ts", hunks: [{ old_start: 1, new_start: 1, lines: ["+new"] }] },
    ]);
  });
});
