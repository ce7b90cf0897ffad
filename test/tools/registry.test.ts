import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { createToolRegistry } from "../../src/tools/registry.ts";
import { defineTool } from "../../src/tools/tool.ts";

const progress = defineTool({
  name: "progress_update",
  description: "d",
  inputSchema: Type.Object({}),
  run: async () => ({ output: "ok" }),
});

describe("tool registry", () => {
  test("built-ins, extra tools, disabled tools removed, required tools kept with a warning", () => {
    const r = createToolRegistry({ editFormat: null, disabledTools: ["grep", "progress_update"], extraTools: [progress] });
    expect(r.list().map((t) => t.name)).toEqual(["read", "write", "edit", "glob", "progress_update"]);
    expect(r.get("grep")).toBeUndefined();
    expect(r.warnings).toEqual(['daemon.disabled_tools lists "progress_update", which the agent loop needs; it stays enabled.']);
    const defs = r.definitions();
    expect(defs[0]!.description).toContain("Read a file");
    expect(defs[0]!.inputSchema).toMatchObject({ type: "object", required: ["path"], additionalProperties: false });
  });

  test("hashline models get hashline read and edit", () => {
    const r = createToolRegistry({ editFormat: "hashline" });
    expect(r.get("read")!.description).toContain("lineno:hash| text");
    expect(r.get("edit")!.description).toContain("Edit a file by line addresses");
  });
});
