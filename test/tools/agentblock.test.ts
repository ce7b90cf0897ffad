// `.agentblock`: read, write and edit refuse blocked paths; glob and grep leave them out.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createToolContext } from "../../src/tools/context.ts";
import { editToolFor } from "../../src/tools/edit.ts";
import { globTool } from "../../src/tools/glob.ts";
import { grepTool } from "../../src/tools/grep.ts";
import { createReadTool } from "../../src/tools/read.ts";
import { runTool } from "../../src/tools/tool.ts";
import { writeTool } from "../../src/tools/write.ts";

function project(files: Record<string, string>) {
  const root = mkdtempSync(join(tmpdir(), "agentblock-"));
  mkdirSync(join(root, ".git"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const ctx = createToolContext({ projectRoot: root, clock: { now: () => Date.now() }, supportsVision: false });
  return { root, ctx };
}

const signal = new AbortController().signal;

describe(".agentblock", () => {
  const files = {
    "secrets/.agentblock": "",
    "secrets/keys.txt": "needle private\n",
    "secrets/deep/more.txt": "needle deep\n",
    "config/.agentblock": "# only the prod files\nprod.*\n",
    "config/prod.env": "needle prod\n",
    "config/dev.env": "needle dev\n",
    "src/app.ts": "needle app\n",
  };

  test("an empty file blocks the whole tree for read, write and edit", async () => {
    const { root, ctx } = project(files);
    const read = await runTool(createReadTool({ hashline: false }), { path: "secrets/deep/more.txt" }, ctx, signal);
    expect(read.isError).toBe(true);
    expect(read.output).toContain("is blocked by `secrets/.agentblock`");
    const write = await runTool(writeTool, { path: "secrets/new.txt", content: "x" }, ctx, signal);
    expect(write.isError).toBe(true);
    expect(existsSync(join(root, "secrets/new.txt"))).toBe(false);
    const edit = await runTool(editToolFor("replace"), { path: "secrets/keys.txt", old_string: "needle", new_string: "pin" }, ctx, signal);
    expect(edit.isError).toBe(true);
    expect(edit.output).toContain("blocked");
  });

  test("patterns block only what they name", async () => {
    const { ctx } = project(files);
    const prod = await runTool(createReadTool({ hashline: false }), { path: "config/prod.env" }, ctx, signal);
    expect(prod.output).toContain("blocked by `config/.agentblock`");
    const dev = await runTool(createReadTool({ hashline: false }), { path: "config/dev.env" }, ctx, signal);
    expect(dev.isError).toBeFalsy();
    expect(dev.output).toContain("needle dev");
  });

  test("glob and grep leave blocked files out", async () => {
    const { ctx } = project(files);
    const glob = await runTool(globTool, { pattern: "**/*" }, ctx, signal);
    expect(glob.output).toContain("src/app.ts");
    expect(glob.output).toContain("config/dev.env");
    expect(glob.output).not.toContain("keys.txt");
    expect(glob.output).not.toContain("prod.env");
    const grep = await runTool(grepTool, { pattern: "needle" }, ctx, signal);
    expect(grep.output).toContain("src/app.ts");
    expect(grep.output).not.toContain("private");
    expect(grep.output).not.toContain("needle prod");
    expect(grep.output).not.toContain("needle deep");
  });
});
