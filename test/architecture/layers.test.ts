// The folder rules of docs/architecture.md hold: imports follow the allowed-direction table and no
// module reaches itself through runtime imports.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { importCycles, importEdges, layerViolations, tableMarkdown } from "../../scripts/check-layers.ts";

const root = join(import.meta.dir, "../..");

describe("layers", () => {
  const edges = importEdges(root);

  test("every import between folders follows the table", () => {
    expect(edges.length).toBeGreaterThan(1000);
    expect(layerViolations(edges)).toEqual([]);
  });

  test("no runtime import cycle", () => {
    expect(importCycles(edges)).toEqual([]);
  });

  test("docs/architecture.md shows the table the check enforces", () => {
    expect(readFileSync(join(root, "docs/architecture.md"), "utf8")).toContain(tableMarkdown());
  });

  test("an upward import, a type-only one where the table allows none, and a cycle are reported", () => {
    const bad = [
      { from: "src/config/load.ts", to: "src/cli/run.ts", runtime: true },
      { from: "src/providers/call.ts", to: "src/telemetry/tracer.ts", runtime: false },
      { from: "src/telemetry/mcp-spans.ts", to: "src/tools/tool.ts", runtime: false },
      { from: "src/telemetry/mcp-spans.ts", to: "src/tools/tool.ts", runtime: true },
      { from: "src/config/models.ts", to: "src/providers/catalog.ts", runtime: true },
      { from: "src/config/models.ts", to: "src/providers/call.ts", runtime: true },
    ];
    expect(layerViolations(bad)).toEqual([
      "src/config/load.ts -> src/cli/run.ts: config/ may not import cli/",
      "src/providers/call.ts -> src/telemetry/tracer.ts (type): providers/ may not import telemetry/",
      "src/telemetry/mcp-spans.ts -> src/tools/tool.ts: telemetry/ may not import tools/",
      "src/config/models.ts -> src/providers/call.ts: config/ may not import providers/",
    ]);
    const cycle = [
      { from: "src/cli/a.ts", to: "src/cli/b.ts", runtime: true },
      { from: "src/cli/b.ts", to: "src/cli/c.ts", runtime: true },
      { from: "src/cli/c.ts", to: "src/cli/a.ts", runtime: true },
      { from: "src/cli/c.ts", to: "src/cli/d.ts", runtime: true },
      { from: "src/cli/d.ts", to: "src/cli/c.ts", runtime: false },
    ];
    expect(importCycles(cycle)).toEqual([["src/cli/a.ts", "src/cli/b.ts", "src/cli/c.ts"]]);
  });
});
