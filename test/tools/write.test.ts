import { describe, expect, test } from "bun:test";
import { readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { writeTool } from "../../src/tools/write.ts";
import { call, makeContext, makeProject } from "./helpers.ts";

describe("write", () => {
  test("creates parent directories, reports lines and bytes, and reports the mutation", async () => {
    const root = makeProject();
    const ctx = makeContext(root);
    const r = await call(writeTool, { path: "a/b/c.txt", content: "x\ny\n" }, ctx);
    expect(r.output).toBe("Created `a/b/c.txt`: 2 lines, 4 bytes.");
    expect(readFileSync(join(root, "a/b/c.txt"), "utf8")).toBe("x\ny\n");
    expect(ctx.mutated).toEqual([join(root, "a/b/c.txt")]);
    const again = await call(writeTool, { path: "a/b/c.txt", content: "z" }, ctx);
    expect(again.output).toBe("Overwrote `a/b/c.txt`: 1 line, 1 byte.");
  });

  test("refuses paths outside the project, also through symlinks", async () => {
    const root = makeProject();
    const outside = makeProject();
    symlinkSync(outside, join(root, "escape"));
    const ctx = makeContext(root);
    const r = await call(writeTool, { path: join(outside, "x.txt"), content: "" }, ctx);
    expect(r).toEqual({ isError: true, output: `\`${join(outside, "x.txt")}\` is outside the project (${root}); file tools only change files inside the project.` });
    const s = await call(writeTool, { path: "escape/x.txt", content: "" }, ctx);
    expect(s.output).toBe("`escape/x.txt` leads outside the project through a symlink; file tools only change files inside the project.");
    expect(ctx.mutated).toEqual([]);
  });

  test("a directory path is refused", async () => {
    const root = makeProject({ "d/f": "" });
    expect((await call(writeTool, { path: "d", content: "x" }, makeContext(root))).output).toBe("`d` is a directory; give a file path inside it.");
  });
});
