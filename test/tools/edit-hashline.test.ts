import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { editToolFor } from "../../src/tools/edit.ts";
import { lineHash } from "../../src/tools/file-content.ts";
import { call, makeContext, makeProject } from "./helpers.ts";

const edit = editToolFor("hashline");
const SRC = "one\ntwo\nthree\nfour\n";
const at = (n: number, text: string) => `${n}:${lineHash(text)}`;

describe("edit (hashline)", () => {
  test("replace, insert_after (also at the top), delete, applied against the file as read", async () => {
    const root = makeProject({ "f.txt": SRC });
    const ctx = makeContext(root);
    const r = await call(
      edit,
      {
        path: "f.txt",
        edits: [
          { op: "replace", start: at(2, "two"), content: "TWO\nTWO-B" },
          { op: "insert_after", start: "0", content: "zero" },
          { op: "delete", start: at(3, "three"), end: at(4, "four") },
        ],
      },
      ctx,
    );
    expect(readFileSync(join(root, "f.txt"), "utf8")).toBe("zero\none\nTWO\nTWO-B\n");
    expect(r.output).toStartWith("Edited `f.txt`: 3 edits applied. Changed lines with their new addresses:\n");
    expect(r.output).toContain(`${at(3, "TWO")}| TWO\n${at(4, "TWO-B")}| TWO-B`);
    expect(ctx.mutated).toEqual([join(root, "f.txt")]);
  });

  test("a stale hash fails, says where the line went, and changes nothing", async () => {
    const root = makeProject({ "f.txt": SRC });
    const ctx = makeContext(root);
    writeFileSync(join(root, "f.txt"), "new first\n" + SRC);
    const r = await call(edit, { path: "f.txt", edits: [{ op: "replace", start: at(2, "two"), content: "x" }] }, ctx);
    expect(r.isError).toBe(true);
    expect(r.output).toBe(
      `edit 1: start "${at(2, "two")}" no longer matches: line 2 is now ${at(2, "one")}| one. A line with hash ${lineHash("two")} is now at line 3. ` +
        "The file changed since you read it; read it again and use the new addresses. No edits were applied.",
    );
    expect(readFileSync(join(root, "f.txt"), "utf8")).toBe("new first\n" + SRC);
  });

  test("malformed addresses, overlaps, prefixed content, missing content", async () => {
    const root = makeProject({ "f.txt": SRC });
    const ctx = makeContext(root);
    const run = async (edits: unknown[]) => (await call(edit, { path: "f.txt", edits }, ctx)).output;
    expect(await run([{ op: "replace", start: "2", content: "x" }])).toBe(
      'edit 1: start "2" is not a `lineno:hash` address like "12:a3f" (copy it from read\'s output).',
    );
    expect(await run([{ op: "delete", start: "9:abc" }])).toBe('edit 1: start "9:abc" is past the end of `f.txt`, which has 4 lines. Read the file again.');
    expect(
      await run([
        { op: "replace", start: at(1, "one"), end: at(3, "three"), content: "x" },
        { op: "delete", start: at(2, "two") },
      ]),
    ).toBe("edits 1 and 2 overlap; merge them into one edit.");
    expect(await run([{ op: "replace", start: at(1, "one"), content: `${at(1, "one")}| uno` }])).toBe(
      "edit 1: `content` lines start with `lineno:hash| ` prefixes; give the bare file text without them.",
    );
    expect(await run([{ op: "replace", start: at(1, "one") }])).toBe('edit 1: op "replace" needs `content`.');
    expect(readFileSync(join(root, "f.txt"), "utf8")).toBe(SRC);
  });
});
