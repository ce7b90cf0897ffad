import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { lineHash } from "../../src/tools/file-content.ts";
import { createReadTool, readTool, READ_DEFAULT_LIMIT } from "../../src/tools/read.ts";
import { MAX_IMAGE_BASE64 } from "../../src/tools/tool.ts";
import { call, makeContext, makeProject } from "./helpers.ts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);

describe("read", () => {
  test("shows numbered lines, relative to cwd", async () => {
    const root = makeProject({ "src/a.ts": "one\ntwo\nthree\n" });
    const r = await call(readTool, { path: "a.ts" }, makeContext(root, { cwd: "src" }));
    expect(r.isError).toBeUndefined();
    expect(r.output).toBe("1| one\n2| two\n3| three");
  });

  test("offset and limit select a range and say how to continue", async () => {
    const root = makeProject({ "a.txt": Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n") });
    const r = await call(readTool, { path: "a.txt", offset: 3, limit: 2 }, makeContext(root));
    expect(r.output).toBe("3| line 3\n4| line 4\n[showing 2 lines: lines 3-4 of 10; call read with offset=5 to continue]");
  });

  test("the default limit and the byte cap are stated", async () => {
    const many = Array.from({ length: READ_DEFAULT_LIMIT + 5 }, (_, i) => `l${i + 1}`).join("\n");
    const wide = Array.from({ length: 200 }, () => "x".repeat(1000)).join("\n");
    const root = makeProject({ "many.txt": many, "wide.txt": wide });
    const ctx = makeContext(root);
    const a = await call(readTool, { path: "many.txt" }, ctx);
    expect(a.output).toEndWith(`[showing ${READ_DEFAULT_LIMIT} lines: lines 1-${READ_DEFAULT_LIMIT} of ${READ_DEFAULT_LIMIT + 5}; call read with offset=${READ_DEFAULT_LIMIT + 1} to continue]`);
    const b = await call(readTool, { path: "wide.txt" }, ctx);
    expect(b.output).toMatch(/\[output capped at 50\.0 KB: lines 1-(\d+) of 200; call read with offset=\d+ to continue\]$/);
    expect(Buffer.byteLength(b.output)).toBeLessThan(52 * 1024);
  });

  test("hashline mode prefixes lineno:hash", async () => {
    const root = makeProject({ "a.ts": "const a = 1;\nreturn a;\n" });
    const r = await call(createReadTool({ hashline: true }), { path: "a.ts" }, makeContext(root));
    expect(r.output).toBe(`1:${lineHash("const a = 1;")}| const a = 1;\n2:${lineHash("return a;")}| return a;`);
  });

  test("failures tell the model what to do", async () => {
    const root = makeProject({ "src/config.ts": "x", "bin.dat": new Uint8Array([1, 2, 0, 4]), "e.txt": "", "s.txt": "a\nb" });
    mkdirSync(join(root, "dir"));
    const ctx = makeContext(root);
    const missing = await call(readTool, { path: "src/confg.ts" }, ctx);
    expect(missing.isError).toBe(true);
    expect(missing.output).toBe("No such file: `src/confg.ts`. Similar names in that directory: config.ts. Use `glob` to find the right path.");
    expect((await call(readTool, { path: "dir" }, ctx)).output).toBe("`dir` is a directory, not a file. Use `glob` to list its files.");
    expect((await call(readTool, { path: "bin.dat" }, ctx)).output).toStartWith("`bin.dat` is a binary file (4 bytes); read only shows text.");
    expect((await call(readTool, { path: "e.txt" }, ctx)).output).toBe("`e.txt` is empty (0 lines).");
    const past = await call(readTool, { path: "s.txt", offset: 9 }, ctx);
    expect(past).toEqual({ output: "offset 9 is past the end of `s.txt`, which has 2 lines; use an offset from 1 to 2.", isError: true });
  });

  test("invalid arguments name the field and the expected shape", async () => {
    const root = makeProject({ "a.txt": "a" });
    const r = await call(readTool, { path: "a.txt", offset: 0, extra: true }, makeContext(root));
    expect(r.isError).toBe(true);
    expect(r.output).toContain("`offset`: Expected integer to be greater or equal to 1 (got 0)");
    expect(r.output).toContain("Expected fields: path, offset?, limit?. Fix the arguments and call `read` again.");
    const none = await call(readTool, {}, makeContext(root));
    expect(none.output).toContain("`path`: Expected required property");
  });

  test("an image is shown up to 5 MiB of base64 (what Anthropic takes); a larger one is described, not sent", async () => {
    // 3 MiB * 1.25 of bytes is exactly MAX_IMAGE_BASE64 of base64.
    const fits = new Uint8Array((MAX_IMAGE_BASE64 / 4) * 3);
    fits.set(PNG);
    const over = new Uint8Array(fits.length + 1);
    over.set(PNG);
    const root = makeProject({});
    writeFileSync(join(root, "fits.png"), fits);
    writeFileSync(join(root, "over.png"), over);
    const ctx = makeContext(root, { supportsVision: true });
    const shown = await call(readTool, { path: "fits.png" }, ctx);
    expect(shown.images![0]!.data.length).toBe(MAX_IMAGE_BASE64);
    const refused = await call(readTool, { path: "over.png" }, ctx);
    expect(refused.isError).toBe(true);
    expect(refused.images).toBeUndefined();
    expect(refused.output).toBe(
      "`over.png` is an image of 3.8 MB (5.0 MB as base64), over the 5.0 MB of base64 that providers take for one image. " +
        "Make a smaller copy with the shell (e.g. `convert in.png -resize 50% small.png`) and read that.",
    );
  });

  test("images go to vision models only", async () => {
    const root = makeProject({ "shot.png": PNG, "fake.png": "not an image" });
    const seeing = await call(readTool, { path: "shot.png" }, makeContext(root, { supportsVision: true }));
    expect(seeing.output).toBe("Image `shot.png` (image/png, 16 bytes).");
    expect(seeing.images).toEqual([{ mediaType: "image/png", data: Buffer.from(PNG).toString("base64") }]);
    const blind = await call(readTool, { path: "shot.png" }, makeContext(root));
    expect(blind.isError).toBe(true);
    expect(blind.images).toBeUndefined();
    expect(blind.output).toContain("the current model cannot see images");
    const fake = await call(readTool, { path: "fake.png" }, makeContext(root, { supportsVision: true }));
    expect(fake.output).toBe("`fake.png` has an image extension but is not a PNG, JPEG, GIF or WebP image.");
  });

  test("files outside the project can be read", async () => {
    const outside = makeProject({ "notes.txt": "hello" });
    const root = makeProject();
    symlinkSync(join(outside, "notes.txt"), join(root, "link.txt"));
    const ctx = makeContext(root);
    expect((await call(readTool, { path: join(outside, "notes.txt") }, ctx)).output).toBe("1| hello");
    expect((await call(readTool, { path: "link.txt" }, ctx)).output).toBe("1| hello");
  });
});
