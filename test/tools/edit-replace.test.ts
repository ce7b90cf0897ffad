import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { editToolFor, resolveEditFormat } from "../../src/tools/edit.ts";
import { toolJsonSchema } from "../../src/tools/tool.ts";
import { call, makeContext, makeProject } from "./helpers.ts";

const edit = editToolFor(null);
const SRC = "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 1;\n}\n";

describe("edit (exact replacement)", () => {
  test("replaces a unique match and writes the file", async () => {
    const root = makeProject({ "f.ts": SRC });
    const ctx = makeContext(root);
    const r = await call(edit, { path: "f.ts", old_string: "function b() {\n  return 1;", new_string: "function b() {\n  return 2;" }, ctx);
    expect(r.output).toBe("Edited `f.ts`: 1 replacement at line 5.");
    expect(readFileSync(join(root, "f.ts"), "utf8")).toBe(SRC.replace("b() {\n  return 1", "b() {\n  return 2"));
    expect(ctx.mutated).toEqual([join(root, "f.ts")]);
  });

  test("several matches: lists the lines, or replaces all with replace_all", async () => {
    const root = makeProject({ "f.ts": SRC });
    const ctx = makeContext(root);
    const r = await call(edit, { path: "f.ts", old_string: "return 1;", new_string: "return $&;" }, ctx);
    expect(r).toEqual({
      isError: true,
      output: "old_string matches 2 times in `f.ts`, at lines 2, 6. Add surrounding lines to old_string so it matches once, or set replace_all: true to change every occurrence.",
    });
    const all = await call(edit, { path: "f.ts", old_string: "return 1;", new_string: "return $&;", replace_all: true }, ctx);
    expect(all.output).toBe("Edited `f.ts`: 2 replacements at lines 2, 6.");
    expect(readFileSync(join(root, "f.ts"), "utf8")).toBe(SRC.split("return 1;").join("return $&;"));
  });

  test("not found: the closest line, or the whitespace-blind match", async () => {
    const root = makeProject({ "f.ts": SRC });
    const ctx = makeContext(root);
    const r = await call(edit, { path: "f.ts", old_string: "function c() {", new_string: "x" }, ctx);
    expect(r.output).toBe(
      "old_string was not found in `f.ts`; the closest line is 1: function a() {\nRead the file around that line and copy the text exactly (indentation and spaces included).",
    );
    const ws = await call(edit, { path: "f.ts", old_string: "function b() {\nreturn 1;", new_string: "x" }, ctx);
    expect(ws.output).toBe(
      "old_string was not found exactly in `f.ts`, but lines 5-6 match when whitespace is ignored:\n5| function b() {\n6|   return 1;\nCopy these lines exactly (indentation and spaces included) into old_string and retry.",
    );
    const none = await call(edit, { path: "f.ts", old_string: "zzzz qqqq", new_string: "x" }, ctx);
    expect(none.output).toBe("old_string was not found in `f.ts`, and no line resembles it. Read the file again; it may have changed.");
    expect(readFileSync(join(root, "f.ts"), "utf8")).toBe(SRC);
    expect(ctx.mutated).toEqual([]);
  });

  test("identical strings, empty old_string, missing files, CRLF files", async () => {
    const root = makeProject({ "f.ts": SRC, "w.txt": "a\r\nb\r\n" });
    const ctx = makeContext(root);
    expect((await call(edit, { path: "f.ts", old_string: "a", new_string: "a" }, ctx)).output).toStartWith("old_string and new_string are identical");
    expect((await call(edit, { path: "f.ts", old_string: "", new_string: "a" }, ctx)).output).toBe(
      "old_string is empty, but `f.ts` already exists. Quote the text to replace, or use `write` to replace the whole file.",
    );
    expect((await call(edit, { path: "new/n.ts", old_string: "", new_string: "hi\n" }, ctx)).output).toBe("Created `new/n.ts`.");
    expect(readFileSync(join(root, "new/n.ts"), "utf8")).toBe("hi\n");
    expect((await call(edit, { path: "nope.ts", old_string: "a", new_string: "b" }, ctx)).output).toBe(
      "No such file: `nope.ts`. Use `write` to create a new file, or `glob` to find the right path.",
    );
    await call(edit, { path: "w.txt", old_string: "a\nb", new_string: "c\nd" }, ctx);
    expect(readFileSync(join(root, "w.txt"), "utf8")).toBe("c\r\nd\r\n");
  });

  test("edit_format picks the tool; unknown names fall back with a warning", () => {
    expect(resolveEditFormat(null)).toEqual({ format: "replace" });
    expect(resolveEditFormat("apply_patch")).toEqual({ format: "patch" });
    expect(resolveEditFormat("hashline")).toEqual({ format: "hashline" });
    expect(resolveEditFormat("xml").warning).toBe('edit_format "xml" is not one of replace, patch, hashline; the model gets exact string replacement.');
    expect(Object.keys(toolJsonSchema(editToolFor("patch")).properties as object)).toEqual(["patch"]);
    expect(Object.keys(toolJsonSchema(editToolFor("hashline")).properties as object)).toEqual(["path", "edits"]);
  });
});
