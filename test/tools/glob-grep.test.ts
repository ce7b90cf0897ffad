import { describe, expect, test } from "bun:test";
import { globTool } from "../../src/tools/glob.ts";
import { grepTool } from "../../src/tools/grep.ts";
import { writeTool } from "../../src/tools/write.ts";
import { call, makeContext, makeProject, writeFiles } from "./helpers.ts";

const FILES = {
  ".gitignore": "dist/\n",
  "src/a.ts": "export const Alpha = 1;\nconst beta = 2;\n",
  "src/lib/b.ts": "import { Alpha } from '../a';\n",
  "src/lib/c.json": "{ \"alpha\": true }\n",
  "README.md": "Alpha project\n",
  "dist/a.js": "Alpha\n",
  "node_modules/x/index.js": "Alpha\n",
  "img.bin": new Uint8Array([0, 1, 2, 65, 108, 112, 104, 97]),
};

describe("glob", () => {
  test("**, *, ?, braces; names without / match at any depth; ignored files are not listed", async () => {
    const ctx = makeContext(makeProject(FILES, { git: true }));
    expect((await call(globTool, { pattern: "*.ts" }, ctx)).output).toBe("src/a.ts\nsrc/lib/b.ts");
    expect((await call(globTool, { pattern: "src/**/*.{ts,json}" }, ctx)).output).toBe("src/a.ts\nsrc/lib/b.ts\nsrc/lib/c.json");
    expect((await call(globTool, { pattern: "src/?.ts" }, ctx)).output).toBe("src/a.ts");
    expect((await call(globTool, { pattern: "*.js" }, ctx)).output).toBe("No files match `*.js` (files ignored by .gitignore are not listed).");
    expect((await call(globTool, { pattern: "*", path: "src/lib" }, ctx)).output).toBe("src/lib/b.ts\nsrc/lib/c.json");
  });

  test("bad paths are explained", async () => {
    const ctx = makeContext(makeProject(FILES, { git: true }));
    expect((await call(globTool, { pattern: "*", path: "nope" }, ctx)).output).toBe("No such directory: `nope`. Use glob with a broader path to find it.");
    expect((await call(globTool, { pattern: "*", path: "/" }, ctx)).output).toBe(
      "`/` is outside the project; glob and grep search the project's files only. Use the shell for other places.",
    );
  });

  test("a write through the tools invalidates the cache; outside changes wait for the TTL", async () => {
    const root = makeProject(FILES, { git: true });
    const ctx = makeContext(root);
    expect((await call(globTool, { pattern: "*.md" }, ctx)).output).toBe("README.md");
    writeFiles(root, { "NOTES.md": "" });
    expect((await call(globTool, { pattern: "*.md" }, ctx)).output).toBe("README.md");
    await call(writeTool, { path: "docs/x.md", content: "" }, ctx);
    expect((await call(globTool, { pattern: "*.md" }, ctx)).output).toBe("NOTES.md\nREADME.md\ndocs/x.md");
  });

  test("outside a repository the budget note is stated", async () => {
    const ctx = makeContext(makeProject({ "a.txt": "", "b.txt": "", "c.txt": "" }), { fileCatalog: { max_files: 2 } });
    const r = await call(globTool, { pattern: "*.txt" }, ctx);
    expect(r.output).toBe(
      "a.txt\nb.txt\n[the project is not in a source-controlled repository and its file walk stopped at 2 files (daemon.file_catalog.max_files); only 2 files were searched. Narrow the search with `path`, or use the shell.]",
    );
  });
});

describe("grep", () => {
  test("path:line: text over the catalog, skipping ignored and binary files", async () => {
    const ctx = makeContext(makeProject(FILES, { git: true }));
    expect((await call(grepTool, { pattern: "Alpha" }, ctx)).output).toBe("README.md:1: Alpha project\nsrc/a.ts:1: export const Alpha = 1;\nsrc/lib/b.ts:1: import { Alpha } from '../a';");
    expect((await call(grepTool, { pattern: "alpha", case_insensitive: true, glob: "*.json" }, ctx)).output).toBe('src/lib/c.json:1: { "alpha": true }');
    expect((await call(grepTool, { pattern: "^const \\w+ = 2", path: "src" }, ctx)).output).toBe("src/a.ts:2: const beta = 2;");
    expect((await call(grepTool, { pattern: "zzz" }, ctx)).output).toBe("No matches for `zzz` in 6 files.");
  });

  test("an invalid regex says how to fix it", async () => {
    const r = await call(grepTool, { pattern: "foo(" }, makeContext(makeProject(FILES, { git: true })));
    expect(r.isError).toBe(true);
    expect(r.output).toStartWith("`foo(` is not a valid JavaScript regular expression: ");
    expect(r.output).toEndWith("Escape special characters such as ( [ { . * + ? with a backslash to match them literally.");
  });

  test("the match cap is stated", async () => {
    const ctx = makeContext(makeProject({ "many.txt": "hit\n".repeat(600) }, { git: true }));
    const lines = (await call(grepTool, { pattern: "hit" }, ctx)).output.split("\n");
    expect(lines).toHaveLength(501);
    expect(lines[500]).toBe("[stopped at 500 matches; narrow the pattern, glob or path to see the rest]");
  });
});
