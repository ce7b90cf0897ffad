// A throwaway project directory and a tool context on a fake clock.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Static } from "@sinclair/typebox";
import type { FileCatalogConfig } from "../../src/config/schema/daemon.ts";
import { createToolContext } from "../../src/tools/context.ts";
import { runTool, type Tool, type ToolContext, type ToolResult } from "../../src/tools/tool.ts";
import { FakeClock } from "../fakes/fake-clock.ts";

export function makeProject(files: Record<string, string | Uint8Array> = {}, options: { git?: boolean } = {}): string {
  const root = mkdtempSync(join(tmpdir(), "agent-tools-"));
  if (options.git) mkdirSync(join(root, ".git"));
  writeFiles(root, files);
  return root;
}

export function writeFiles(root: string, files: Record<string, string | Uint8Array>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

export interface TestContext extends ToolContext {
  mutated: string[];
  fakeClock: FakeClock;
}

export function makeContext(
  root: string,
  options: { supportsVision?: boolean; cwd?: string; fileCatalog?: Static<typeof FileCatalogConfig>; clock?: FakeClock } = {},
): TestContext {
  const mutated: string[] = [];
  const clock = options.clock ?? new FakeClock();
  const ctx = createToolContext({
    projectRoot: root,
    cwd: options.cwd,
    clock,
    supportsVision: options.supportsVision ?? false,
    fileCatalog: options.fileCatalog,
    onFileMutated: (path) => mutated.push(path),
  });
  return Object.assign(ctx, { mutated, fakeClock: clock });
}

export function call(tool: Tool, input: unknown, ctx: ToolContext): Promise<ToolResult> {
  return runTool(tool, input, ctx, new AbortController().signal);
}
