// Subagent definitions: explicit sources beat `.agent/subagents/*.md` files, which beat the built-ins;
// a bad definition file is refused with file:line and what is allowed (the session says so, and `task`
// tells the model); the daemon catalog lists the subagents with description, tags and origin; the
// stall watchdog's settings and their defaults.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import { definitionSources } from "../../src/agent/subagents/host.ts";
import { loadSubagentDefinitions } from "../../src/agent/subagents/definitions.ts";
import { resolveStallSettings } from "../../src/agent/subagents/settings.ts";
import { configuredEngine } from "../../src/cli/daemon-run.ts";
import { startDaemon, type RunningDaemon } from "../../src/daemon/serve.ts";
import { TOKEN, tempSessionDir } from "../daemon/harness.ts";
import { makeProject, scriptedConfig, startSession, type Project } from "./harness.ts";

const MODELS = `providers:
  offline: { kind: { type: catalog, name: test }, url: script.yaml }
models:
  small: { provider: offline, class: mini, context_window: 50000 }
  deep: { provider: offline, class: full, context_window: 50000, reasoning: { type: effort, effort_set: levels, can_disable: false, levels: [low, high], default_level: low } }
`;

function definitions(p: Project) {
  const loaded = loadConfig({ cwd: p.root, env: p.env });
  expect(loaded.problems.filter((x) => x.severity === "error")).toEqual([]);
  const warnings: string[] = [];
  return { ...loadSubagentDefinitions(definitionSources(loaded, true), warnings), warnings };
}

const file = (front: string, body = "Do the thing.") => `---\n${front}---\n${body}\n`;

describe("precedence", () => {
  test("explicit source > .agent/subagents file > built-in; agent:// sources reuse a built-in under a new name", () => {
    const p = makeProject(
      `${MODELS}subagents:\n  general: { source: prompts/general.md }\n  scout: { source: "agent://subagents/explore" }\n`,
      {
        "prompts/general.md": file("description: General from the config\nmodel: small\n", "Config general prompt."),
        ".agent/subagents/general.md": file("description: General from the file\n", "File general prompt."),
        ".agent/subagents/explore.md": file("description: Project explorer\ntools: [read, grep]\ntags: [mine, fast]\nmax_tool_turns: 5\nmodel: mini\n", "Project explore prompt."),
        ".agent/subagents/reviewer.md": file("description: Reviews a diff\nmodel: deep(high)\n", "Review prompt."),
      },
    );
    const { usable, broken, warnings } = definitions(p);
    expect(broken.size).toBe(0);
    expect(warnings).toEqual([]);
    expect([...usable.keys()]).toEqual(["explore", "general", "reviewer", "scout"]);
    expect(usable.get("general")).toMatchObject({ description: "General from the config", prompt: "Config general prompt.", origin: "project", source: "prompts/general.md", model: { kind: "pin", ref: "small" } });
    expect(usable.get("explore")).toMatchObject({
      description: "Project explorer",
      prompt: "Project explore prompt.",
      tools: ["read", "grep"],
      tags: ["mine", "fast"],
      maxToolTurns: 5,
      model: { kind: "class", class: "mini" },
      origin: "project",
      source: join(p.root, ".agent/subagents/explore.md"),
    });
    expect(usable.get("reviewer")).toMatchObject({ model: { kind: "pin", ref: "deep(high)" }, tools: null, maxToolTurns: 30 });
    expect(usable.get("scout")).toMatchObject({ origin: "builtin", source: "agent://subagents/explore", tools: ["read", "glob", "grep", "web_fetch", "web_search"] });
    expect(usable.get("scout")!.prompt).toContain("You are explore");
  });

  test("without project definitions the built-ins explore and general are there", () => {
    const { usable } = definitions(makeProject(MODELS));
    expect([...usable.values()].map((d) => [d.name, d.origin, d.model])).toEqual([
      ["explore", "builtin", { kind: "class", class: "mini" }],
      ["general", "builtin", { kind: "inherit" }],
    ]);
  });
});

describe("bad definition files name file:line and what is allowed", () => {
  const cases: [string, string, RegExp][] = [
    ["unknown key", file("description: x\nmodle: mini\n"), /bad\.md:3: unknown key 'modle'.*allowed: description, model, tools, tags, max_tool_turns/],
    ["no description", file("model: mini\n"), /bad\.md:2: `description` is required/],
    ["nesting", file("description: x\ntools:\n  - read\n  - task\n"), /bad\.md:4: 'task' cannot be given to a subagent: subagents cannot start subagents/],
    ["unknown tool", file("description: x\ntools: [read, gerp]\n"), /bad\.md:3: unknown tool 'gerp'.*allowed: .*grep.*mcp__<server>__<tool>/],
    ["unknown model", file("description: x\nmodel: gpt-9\n"), /bad\.md:3: model 'gpt-9' is not configured; allowed: full, mini, nano, inherit, or a configured model: deep, small/],
    ["level on a model without levels", file("description: x\nmodel: small(high)\n"), /bad\.md:3: model 'small' takes no effort level; write just 'small'/],
    ["unknown level", file("description: x\nmodel: deep(max)\n"), /bad\.md:3: 'max' is not an effort level of model 'deep'; allowed: low, high/],
    ["turns", file("description: x\nmax_tool_turns: 0\n"), /bad\.md:3: `max_tool_turns` must be an integer from 1 to 1000 \(got 0\)/],
    ["tags", file("description: x\n\ntags: nope\n"), /bad\.md:4: `tags` must be a list of non-empty strings/],
    ["bad yaml", file("description: x\ntools: [read\n"), /bad\.md:\d+: the frontmatter is not valid YAML/],
    ["no frontmatter", "Just a prompt.\n", /bad\.md:1: a subagent file starts with YAML frontmatter/],
    ["unclosed", "---\ndescription: x\nbody\n", /bad\.md:1: the frontmatter opened with '---' is never closed/],
    ["empty prompt", file("description: x\n", ""), /bad\.md:4: the prompt is empty/],
  ];
  for (const [name, text, message] of cases) {
    test(name, () => {
      const { usable, broken, warnings } = definitions(makeProject(MODELS, { ".agent/subagents/bad.md": text }));
      expect(usable.has("bad")).toBe(false);
      expect(broken.get("bad")).toMatch(message);
      expect(warnings).toEqual([`subagent 'bad' cannot be used: ${broken.get("bad")}`]);
    });
  }

  test("with follow_symlinks_for_configs off a symlinked file is skipped with a warning (the built-in stays)", () => {
    const p = makeProject(`${MODELS}daemon: { follow_symlinks_for_configs: false }\n`, { "shared/explore.md": file("description: Linked explorer\n") });
    mkdirSync(join(p.root, ".agent/subagents"));
    symlinkSync(join(p.root, "shared/explore.md"), join(p.root, ".agent/subagents/explore.md"));
    const loaded = loadConfig({ cwd: p.root, env: p.env });
    const warnings: string[] = [];
    const { usable, broken } = loadSubagentDefinitions(definitionSources(loaded, false), warnings);
    expect(broken.size).toBe(0);
    expect(usable.get("explore")).toMatchObject({ origin: "builtin", source: "agent://subagents/explore" });
    expect(warnings).toEqual([`skipped ${join(p.root, ".agent/subagents/explore.md")}: it is a symlink and daemon.follow_symlinks_for_configs is off`]);
    expect(definitions(p).usable.get("explore")!.description).toBe("Linked explorer");
  });

  test("a file name that is not a valid subagent name is skipped with a warning", () => {
    const { usable, warnings } = definitions(makeProject(MODELS, { ".agent/subagents/Bad Name.md": file("description: x\n") }));
    expect([...usable.keys()]).toEqual(["explore", "general"]);
    expect(warnings).toEqual([expect.stringContaining("the name 'Bad Name' must be lowercase letters")]);
  });

  test("the session warns about it and `task` tells the model what is wrong", async () => {
    const script = `responses:\n  - tool_calls:\n      - { name: task, arguments: { subagent: bad, description: try it, prompt: go } }\n  - text: understood\n`;
    const p = makeProject(scriptedConfig(), { "script.yaml": script, ".agent/subagents/bad.md": file("description: x\nmodle: mini\n") });
    const r = await startSession(p);
    expect(r.notices).toEqual([expect.stringMatching(/^subagent 'bad' cannot be used: .*bad\.md:3: unknown key 'modle'/)]);
    r.session.submit({ text: "delegate" });
    await r.session.idle();
    const result = r.of("tool_call_completed")[0]!.result;
    expect(result.status).toBe("error");
    expect(result.output).toMatch(/The subagent 'bad' cannot be used because its definition is invalid: .*bad\.md:3: unknown key 'modle'/);
    expect(r.of("subagent_started")).toEqual([]);
  });

  test("`task` with an unknown name lists the subagents there are", async () => {
    const script = `responses:\n  - tool_calls:\n      - { name: task, arguments: { subagent: helper, description: try it, prompt: go } }\n  - text: ok\n`;
    const r = await startSession(makeProject(scriptedConfig(), { "script.yaml": script }));
    r.session.submit({ text: "delegate" });
    await r.session.idle();
    expect(r.of("tool_call_completed")[0]!.result.output).toBe("There is no subagent named 'helper'. Available: explore, general.");
  });
});

describe("daemon catalog", () => {
  let running: RunningDaemon | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  test("GET /daemon-state lists the subagents with description, tags and a coarse origin, never file paths", async () => {
    const p = makeProject(scriptedConfig("subagents:\n  scout: { source: \"agent://subagents/explore\" }\n"), {
      "script.yaml": "responses:\n  - text: ok\n",
      ".agent/subagents/reviewer.md": file("description: Reviews a diff\ntags: [review]\n"),
      ".agent/subagents/broken.md": "no frontmatter\n",
    });
    const { engineFactory, reload } = configuredEngine(p.env, false);
    running = await startDaemon({ sessionDir: tempSessionDir(), project: p.root, credential: TOKEN, engineFactory, reloadCatalog: reload, limits: { heartbeatMs: 0 } });
    const state = await (await fetch(`${running.url}/daemon-state`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json();
    expect(state.subagents.map((s: { name: string }) => s.name)).toEqual(["explore", "general", "reviewer", "scout"]);
    expect(state.subagents.find((s: { name: string }) => s.name === "reviewer")).toEqual({ name: "reviewer", description: "Reviews a diff", tags: ["review"], origin: "project" });
    expect(state.subagents.find((s: { name: string }) => s.name === "scout")).toMatchObject({ origin: "builtin", tags: ["read-only", "research"] });
    expect(JSON.stringify(state.subagents)).not.toContain(p.root);
    expect(state.tools.map((t: { name: string }) => t.name)).toContain("task");

    // A file added later is not offered by the running session's `task` tool, so the catalog does not list it either.
    writeFileSync(join(p.root, ".agent/subagents/late.md"), file("description: Added later\n"));
    expect((await fetch(`${running.url}/daemon-state/reload`, { method: "POST", headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    const reloaded = await (await fetch(`${running.url}/daemon-state`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json();
    expect(reloaded.subagents.map((s: { name: string }) => s.name)).toEqual(["explore", "general", "reviewer", "scout"]);
  });
});

describe("stall watchdog settings", () => {
  test("defaults sit above the provider idle timeout; zero is unset; explicit values are used as given", () => {
    expect(resolveStallSettings(null)).toEqual({ thresholdMs: 360_000, intervalMs: 30_000 });
    expect(resolveStallSettings({ provider_stream_idle_timeout_secs: 600 })).toEqual({ thresholdMs: 660_000, intervalMs: 30_000 });
    expect(resolveStallSettings({ subagent_stall_threshold_secs: 0, subagent_liveness_watchdog_interval_secs: 0 })).toEqual({ thresholdMs: 360_000, intervalMs: 30_000 });
    expect(resolveStallSettings({ subagent_stall_threshold_secs: 90, subagent_liveness_watchdog_interval_secs: 5 })).toEqual({ thresholdMs: 90_000, intervalMs: 5_000 });
  });
});
