// A tool's traits are the only place its permission rules, plan mode, ACP kind and subagent access come
// from: a tool added here, with nothing but its traits, is named in rules and matched by path, allowed or
// refused in plan mode, shown with its kind in an editor, and given to subagents or refused by its reason.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import { toolKind } from "../../src/acp/tool-calls.ts";
import type { Facet } from "../../src/agent/context/facets.ts";
import { facetAllows, facetRefusal } from "../../src/agent/facets/tool-filter.ts";
import { parseDefinitionFile } from "../../src/agent/subagents/definition-file.ts";
import { subagentToolNames } from "../../src/agent/subagents/definitions.ts";
import { RuleEvaluator } from "../../src/permissions/evaluate.ts";
import { parseRule, type Rule } from "../../src/permissions/rules.ts";
import { Secrets } from "../../src/permissions/secrets.ts";
import { BUILTIN_TOOL_TRAITS, type ToolTraitTable } from "../../src/protocol/tool-traits.ts";
import { createGoalTools } from "../../src/agent/goals/tools.ts";
import { createTaskTool } from "../../src/agent/subagents/task-tool.ts";
import { exitTool } from "../../src/tools/exit-tool.ts";
import { createProgressUpdateTool } from "../../src/tools/progress-update.ts";
import { createToolRegistry } from "../../src/tools/registry.ts";
import { defineTool } from "../../src/tools/tool.ts";
import { createToolSearchTool } from "../../src/tools/tool-search.ts";

// Two tools a project could add: a linter that reads files, and a deploy that changes the world.
const lintTool = defineTool({
  name: "lint",
  description: "Lints a file.",
  inputSchema: Type.Object({ path: Type.String() }),
  run: async (input) => ({ output: `linted ${input.path}` }),
});
const traits: ToolTraitTable = {
  ...BUILTIN_TOOL_TRAITS,
  [lintTool.name]: { permission: "path", paths: "path", planSafe: true, acpKind: "read", subagents: true },
  deploy: { permission: "name", planSafe: false, acpKind: "execute", subagents: "a deploy belongs to the root session" },
};

const base = { projectRoot: "/work/proj", home: "/home/u" };

function rule(text: string, effect: Rule["effect"]): Rule {
  const parsed = parseRule(text, traits);
  if (!parsed.ok) throw new Error(parsed.message);
  return { ...parsed.rule, effect, origin: "test" };
}

const planFacet: Facet = { name: "plan", prompt: "", source: "test", readOnly: true, description: null, model: null, tools: null, policies: [], colors: { light: "", dark: "" } };

describe("a tool added with its traits", () => {
  test("permission rules name it with the specifier its traits declare, and match its calls by path", () => {
    expect(parseRule("lint(src/**)", traits)).toMatchObject({ ok: true, rule: { tool: "lint", target: { kind: "path", pattern: "src/**" } } });
    expect(parseRule("deploy", traits)).toMatchObject({ ok: true, rule: { tool: "deploy", target: { kind: "any" } } });
    expect(parseRule("deploy(prod)", traits)).toMatchObject({ ok: false, message: "'deploy' takes no specifier; write just 'deploy'" });
    // Without its traits the name is unknown, and the message lists the tools that are known.
    const unknown = parseRule("lint(src/**)");
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.message).toStartWith("unknown tool 'lint'");
    const known = parseRule("nope", traits);
    if (!known.ok) expect(known.message).toContain("lint, deploy");

    const rules = [rule("lint(src/**)", "allow"), rule("lint(src/secret/**)", "deny")];
    const evaluator = new RuleEvaluator(() => rules, base, new Secrets([], [], base), "bash", traits);
    const call = (path: string) => evaluator.evaluate({ tool: "lint", input: { path }, cwd: base.projectRoot }, "all");
    expect(call("src/a.ts")).toMatchObject({ effect: "allow", rule: "lint(src/**) (test)" });
    expect(call("src/secret/k.ts")).toMatchObject({ effect: "deny", rule: "lint(src/secret/**) (test)" });
    expect(call("docs/a.md")).toMatchObject({ effect: null, suggestions: ["lint(./docs/a.md)"] });
  });

  test("plan mode runs it when its traits say it is safe there, and refuses it otherwise", () => {
    expect(facetAllows(planFacet, "lint", traits)).toBe(true);
    expect(facetAllows(planFacet, "deploy", traits)).toBe(false);
    expect(facetRefusal(planFacet, "deploy", traits)).toContain("Use the read-only tools (read, glob, grep, web_fetch, web_search, progress_update, plan, exit_tool, tool_search, lint)");
    // A built-in the traits call unsafe stays refused, a safe one runs.
    expect(facetAllows(planFacet, "write", traits)).toBe(false);
    expect(facetAllows(planFacet, "grep", traits)).toBe(true);
  });

  test("an ACP editor is told the kind its traits declare", () => {
    expect(toolKind("lint", traits)).toBe("read");
    expect(toolKind("deploy", traits)).toBe("execute");
    expect(toolKind("lint")).toBe("other");
  });

  test("a subagent definition may list it when its traits allow, and is refused with their reason otherwise", () => {
    const checks = { models: new Map<string, null>(), ...subagentToolNames(traits) };
    const file = (tools: string) => `---\ndescription: Checks things.\ntools: [${tools}]\n---\nDo it.\n`;
    expect(parseDefinitionFile(file("read, lint"), "checker.md", checks).tools).toEqual(["read", "lint"]);
    expect(() => parseDefinitionFile(file("deploy"), "checker.md", checks)).toThrow("checker.md:3: 'deploy' cannot be given to a subagent: a deploy belongs to the root session");
    expect(() => parseDefinitionFile(file("lint"), "checker.md", { models: checks.models, ...subagentToolNames() })).toThrow("unknown tool 'lint'");
  });
});

test("every tool a session offers has its traits: the registry's and the engine's own", async () => {
  const engineTools = [
    createProgressUpdateTool(() => {}),
    exitTool,
    createTaskTool([], async () => ({ output: "" })),
    ...createGoalTools({} as never),
    createToolSearchTool({ tools: () => [], onFound: () => {} }),
  ];
  const dir = mkdtempSync(join(tmpdir(), "tool-traits-"));
  try {
    for (const patchName of ["edit", "apply_patch"] as const) {
      const registry = createToolRegistry({
        editFormat: patchName === "apply_patch" ? "patch" : null,
        patchName,
        onPlan: () => {},
        extraTools: engineTools,
        session: { projectRoot: dir, shell: { command: ["bash"] } as never, search: { providers: { search_a: { enabled: true, key: "k" } } } as never },
      });
      const names = registry.list().map((t) => t.name);
      expect(names).toContain("web_search");
      expect(names).toContain(patchName);
      expect(names).toContain("goal_complete");
      for (const name of names) expect(Object.keys(BUILTIN_TOOL_TRAITS)).toContain(name);
      await registry.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
