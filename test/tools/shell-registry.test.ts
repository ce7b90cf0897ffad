// The registry with session-scoped options: shell, web_fetch and web_search offered, disabled ones
// absent, extra tools kept, and close() ending the session's shell.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import { createToolRegistry } from "../../src/tools/registry.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { call, makeContext, makeProject } from "./helpers.ts";
import { processRunning } from "../helpers/processes.ts";

const progress = defineTool({ name: "progress_update", description: "d", inputSchema: Type.Object({}), run: async () => ({ output: "ok" }) });

describe("tool registry with session tools", () => {
  test("shell, web_fetch and web_search join the file tools; extra tools stay", async () => {
    const root = makeProject();
    const r = createToolRegistry({ editFormat: null, extraTools: [progress], session: { projectRoot: root, shell: { command: "bash", init_script: null } } });
    // Without a search provider web_search could only fail: it is not offered.
    expect(r.list().map((t) => t.name)).toEqual(["shell", "read", "write", "edit", "glob", "grep", "web_fetch", "progress_update"]);
    const searchSettings = { providers: { search_a: { enabled: true, key: "k-0123456789" } } } as never;
    const withSearch = createToolRegistry({ editFormat: null, extraTools: [], session: { projectRoot: root, shell: { command: "bash", init_script: null }, search: searchSettings } });
    expect(withSearch.list().map((t) => t.name)).toContain("web_search");
    expect(r.definitions().find((d) => d.name === "shell")!.inputSchema).toMatchObject({ required: ["command"] });
    await r.close();
    await withSearch.close();
  });

  test("disabled session tools are never offered", () => {
    const root = makeProject();
    const r = createToolRegistry({
      editFormat: null,
      disabledTools: ["shell", "web_search", "web_fetch"],
      session: { projectRoot: root, shell: { command: "bash", init_script: null } },
    });
    expect(r.list().map((t) => t.name)).toEqual(["read", "write", "edit", "glob", "grep"]);
    expect(r.get("shell")).toBeUndefined();
  });

  test("close() ends the session's shell and what it started", async () => {
    const root = makeProject();
    const ctx = makeContext(root);
    const r = createToolRegistry({ editFormat: null, session: { projectRoot: root, shell: { command: "bash", init_script: null } } });
    await call(r.get("shell")!, { command: "sleep 300 & echo $! > bg.pid" }, ctx);
    const pid = Number(readFileSync(join(root, "bg.pid"), "utf8"));
    expect(processRunning(pid)).toBe(true);
    await r.close();
    while (processRunning(pid)) await Bun.sleep(20);
    expect(processRunning(pid)).toBe(false);
  });
});
