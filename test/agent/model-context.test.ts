// What the model is told, as the provider receives it (strict vendor fakes): the built-in prompt in the
// wording of the model's family, the instruction chain (repository root down to the working directory,
// fallback names, imports inside the project, a subdirectory's file added by a reminder once a tool
// reaches it), the environment (git branch, upstream, status, recent commits, the model, the local date
// and time zone), and for OpenAI's models the patch tool as `apply_patch` with one `input` string.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { FakeStep, ProviderFake } from "../fakes/provider-fake.ts";
import { startStrictFake } from "../fakes/strict-fake.ts";
import type { Dialect } from "../fakes/request-invariants.ts";
import { makeProject, startSession, type Project } from "./harness.ts";

const KINDS: Record<Dialect, string> = { a_messages: "custom_a_compatible", b_chat_completions: "custom_b_compatible", b_responses: "custom_b_responses" };
const VENDORS: Record<Dialect, string> = { a_messages: "anthropic", b_chat_completions: "openai-chat", b_responses: "openai" };

let fakes: ProviderFake[] = [];
afterEach(async () => {
  for (const f of fakes) await f.stop();
  fakes = [];
});

function start(dialect: Dialect, steps: FakeStep[]): ProviderFake {
  const fake = startStrictFake(VENDORS[dialect], steps);
  fakes.push(fake);
  return fake;
}

function config(dialect: Dialect, fake: ProviderFake, model: string, extra = "", modelExtra = ""): string {
  return `providers:
  fake: { kind: { type: ${KINDS[dialect]} }, url: "${fake.base}", auth: { type: static_key, key: sk-test-key-0123456789 } }
models:
  m: { provider: fake, provider_name: ${model}, class: full, context_window: 200000, tool_loading: eager${modelExtra} }
defaults: { full: m }
${extra.includes("default_permission_matcher") ? "" : "default_permission_matcher: bypass\n"}${extra}`;
}

/** The system prompt as each dialect carries it. */
function systemOf(dialect: Dialect, body: any): string {
  if (dialect === "a_messages") return typeof body.system === "string" ? body.system : body.system.map((b: any) => b.text).join("\n");
  if (dialect === "b_responses") return body.instructions;
  return body.messages.find((m: any) => m.role === "system" || m.role === "developer").content;
}

function toolsOf(dialect: Dialect, body: any): { name: string; parameters: any }[] {
  if (dialect === "a_messages") return body.tools.map((t: any) => ({ name: t.name, parameters: t.input_schema }));
  if (dialect === "b_responses") return body.tools.map((t: any) => ({ name: t.name, parameters: t.parameters }));
  return body.tools.map((t: any) => ({ name: t.function.name, parameters: t.function.parameters }));
}

const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

function put(p: Project, files: Record<string, string>) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(p.root, path)), { recursive: true });
    writeFileSync(join(p.root, path), text);
  }
}

function git(cwd: string, ...args: string[]) {
  const r = Bun.spawnSync(["git", "-c", "user.name=Test", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", ...args], { cwd, stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
}

describe("instruction files", () => {
  test("root down to the working directory, one per directory with fallbacks, imports inside the project; a subdirectory's file arrives once, by reminder", async () => {
    const read = (path: string, id: string): FakeStep => ({ kind: "turn", turn: { text: "Reading.", tool_calls: [{ id, name: "read", arguments: JSON.stringify({ path }) }] } });
    const fake = start("a_messages", [read("sub/x.ts", "toolu_1"), read("sub/y.ts", "toolu_2"), { kind: "turn", turn: { text: "Done." } }]);
    const p = makeProject(config("a_messages", fake, "claude-sonnet-4-5"));
    writeFileSync(join(dirname(p.root), "outside.md"), "OUTSIDE-SECRET-7f3a");
    put(p, {
      "AGENTS.md": "ROOT-RULES: use tabs.",
      "pkg/CLAUDE.md": "PKG-CLAUDE-FALLBACK: run make test.",
      "pkg/app/AGENTS.md": "APP-AGENTS: see @docs/extra.md and @../../../outside.md and `@not/an/import.md`; install @types/node.",
      "pkg/app/CLAUDE.md": "APP-CLAUDE-SHADOWED",
      "pkg/app/docs/extra.md": "IMPORTED-EXTRA: prefer small functions. More in @deeper.md",
      "pkg/app/docs/deeper.md": "IMPORTED-DEEPER",
      "pkg/app/sub/AGENTS.md": "SUB-RULES: never touch generated files.",
      "pkg/app/sub/x.ts": "export const x = 1;\n",
      "pkg/app/sub/y.ts": "export const y = 2;\n",
      "pkg/other/AGENTS.md": "OTHER-NOT-REACHED",
    });
    const r = await startSession(p, { cwd: join(p.root, "pkg", "app") });
    r.session.submit({ text: "look at sub" });
    await r.session.idle();
    expect(fake.violations).toEqual([]);
    expect(fake.requests).toHaveLength(3);
    const first = systemOf("a_messages", fake.requests[0]!.body);
    const order = ["ROOT-RULES", "PKG-CLAUDE-FALLBACK", "APP-AGENTS", "IMPORTED-EXTRA", "IMPORTED-DEEPER"].map((m) => first.indexOf(m));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(first).toContain(`(imported by ${join(p.root, "pkg", "app", "AGENTS.md")})`);
    for (const absent of ["APP-CLAUDE-SHADOWED", "OUTSIDE-SECRET-7f3a", "SUB-RULES", "OTHER-NOT-REACHED"]) expect(JSON.stringify(fake.requests[0]!.body)).not.toContain(absent);
    expect(r.notices.some((n) => n.includes("@../../../outside.md is outside the project"))).toBe(true);
    // An @word that names no file is prose, not a broken import.
    expect(r.notices.filter((n) => n.includes("import"))).toHaveLength(1);
    // After the read of sub/x.ts: the sub directory's file, in an `instructions` reminder, and only once.
    const second = JSON.stringify(fake.requests[1]!.body);
    expect(second).toContain('<system-reminder name=\\"instructions\\">');
    expect(count(second, "SUB-RULES")).toBe(1);
    expect(systemOf("a_messages", fake.requests[1]!.body)).toBe(first);
    expect(count(JSON.stringify(fake.requests[2]!.body), "SUB-RULES")).toBe(1);
  });

  test("daemon.instruction_files picks the names; a bad name is a config error naming the key", async () => {
    const fake = start("a_messages", [{ kind: "turn", turn: { text: "ok" } }]);
    const p = makeProject(config("a_messages", fake, "claude-sonnet-4-5", "daemon: { instruction_files: [RULES.md] }\n"));
    put(p, { "AGENTS.md": "AGENTS-IGNORED", "RULES.md": "CUSTOM-NAME-RULES" });
    const r = await startSession(p);
    r.session.submit({ text: "hi" });
    await r.session.idle();
    const system = systemOf("a_messages", fake.requests[0]!.body);
    expect(system).toContain("CUSTOM-NAME-RULES");
    expect(system).not.toContain("AGENTS-IGNORED");

    const bad = makeProject(config("a_messages", fake, "claude-sonnet-4-5", "daemon: { instruction_files: [docs/AGENTS.md] }\n"));
    await expect(startSession(bad)).rejects.toThrow(/daemon\.instruction_files/);
  });

  test("over the total cap the more general files are left out, and the prompt says which", async () => {
    const fake = start("a_messages", [{ kind: "turn", turn: { text: "ok" } }]);
    const p = makeProject(config("a_messages", fake, "claude-sonnet-4-5"));
    put(p, { "AGENTS.md": `ROOT-BIG ${"r".repeat(60 * 1024)}`, "pkg/AGENTS.md": `PKG-BIG ${"p".repeat(60 * 1024)}` });
    const r = await startSession(p, { cwd: join(p.root, "pkg") });
    r.session.submit({ text: "hi" });
    await r.session.idle();
    const system = systemOf("a_messages", fake.requests[0]!.body);
    expect(system).toContain("PKG-BIG");
    expect(system).not.toContain("ROOT-BIG");
    expect(system).toContain(`these did not fit: ${join(p.root, "AGENTS.md")}`);
  });
});

describe("environment", () => {
  test("git branch, upstream, short status and recent commits; the model's name; the local date in the user's time zone", async () => {
    const fake = start("a_messages", [{ kind: "turn", turn: { text: "ok" } }]);
    const p = makeProject(config("a_messages", fake, "claude-sonnet-4-5"));
    const remote = `${dirname(p.root)}/remote.git`;
    Bun.spawnSync(["rm", "-rf", join(p.root, ".git")]);
    git(dirname(p.root), "init", "-q", "--bare", remote);
    git(p.root, "init", "-q", "-b", "feature/login");
    put(p, { "a.txt": "one\n" });
    git(p.root, "add", "a.txt");
    git(p.root, "commit", "-q", "-m", "first: add a.txt");
    put(p, { "a.txt": "two\n" });
    git(p.root, "commit", "-q", "-am", "second: change a.txt");
    git(p.root, "remote", "add", "origin", remote);
    git(p.root, "push", "-q", "-u", "origin", "feature/login");
    put(p, { "a.txt": "three\n", "new.txt": "n\n" });
    // 02:30 UTC on 2 December is still 1 December in New York.
    const r = await startSession(p, { env: { ...p.env, TZ: "America/New_York" }, clock: { now: () => Date.parse("2026-12-02T02:30:00Z") } as never });
    r.session.submit({ text: "hi" });
    await r.session.idle();
    const system = systemOf("a_messages", fake.requests[0]!.body);
    expect(system).toContain("- Git branch: feature/login, tracking origin/feature/login");
    expect(system).toMatch(/ {2}[0-9a-f]{7,} second: change a\.txt\n {2}[0-9a-f]{7,} first: add a\.txt/);
    expect(system).toContain("   M a.txt");
    expect(system).toContain("  ?? new.txt");
    expect(system).toContain("- Today's date: 2026-12-01 (Tuesday); the user's time zone: America/New_York (UTC-05:00)");
    expect(system).toContain("- You are the model claude-sonnet-4-5 (configured as `m`, provider fake)");
  });
});

describe("the system prompt per model family", () => {
  const cases: { dialect: Dialect; model: string; variant: string; marker: string }[] = [
    { dialect: "a_messages", model: "claude-sonnet-4-5", variant: "claude", marker: "Three similar lines are better than a premature helper." },
    { dialect: "b_responses", model: "gpt-5.5", variant: "gpt", marker: "Keep going until the request is fully handled" },
    { dialect: "b_chat_completions", model: "gemini-3.1-pro-preview", variant: "gemini", marker: "Follow this order for every change:" },
    { dialect: "b_chat_completions", model: "qwen3-coder-480b", variant: "open", marker: "Never write a tool call as text, JSON or XML" },
  ];
  const markers = cases.map((c) => c.marker);
  for (const c of cases) {
    test(`${c.model} gets the shared guidance and the ${c.variant} wording, no other`, async () => {
      const fake = start(c.dialect, [{ kind: "turn", turn: { text: "ok" } }]);
      const r = await startSession(makeProject(config(c.dialect, fake, c.model)));
      r.session.submit({ text: "hi" });
      await r.session.idle();
      expect(fake.violations).toEqual([]);
      const system = systemOf(c.dialect, fake.requests[0]!.body);
      for (const shared of ["# Working in an existing codebase", "never revert", "do not commit, amend, rebase, push", "request them all in one response", "`path:line`", '`<system-reminder name="...">`'])
        expect(system.toLowerCase()).toContain(shared.toLowerCase());
      for (const m of markers) expect(system.includes(m)).toBe(m === c.marker);
      expect(system.length).toBeGreaterThan(6000);
    });
  }

  test("a project facet's own prompt replaces the built-in one with its variant", async () => {
    const fake = start("a_messages", [{ kind: "turn", turn: { text: "ok" } }]);
    const p = makeProject(config("a_messages", fake, "claude-sonnet-4-5"), { ".agent/facets/execute.md": "---\ndescription: ours\n---\nOUR-OWN-EXECUTE-PROMPT\n" });
    const r = await startSession(p);
    r.session.submit({ text: "hi" });
    await r.session.idle();
    const system = systemOf("a_messages", fake.requests[0]!.body);
    expect(system.startsWith("OUR-OWN-EXECUTE-PROMPT")).toBe(true);
    expect(system).not.toContain("# Working in an existing codebase");
    expect(system).not.toContain(cases[0]!.marker);
    // What reminders are is said whatever the facet.
    expect(system).toContain("# System reminders");
  });

  test("models.<key>.api.family overrides the family, and so the wording", async () => {
    const fake = start("b_chat_completions", [{ kind: "turn", turn: { text: "ok" } }]);
    const r = await startSession(makeProject(config("b_chat_completions", fake, "my-gemini-finetune", "", ", api: { family: gemini }")));
    r.session.submit({ text: "hi" });
    await r.session.idle();
    expect(systemOf("b_chat_completions", fake.requests[0]!.body)).toContain(cases[2]!.marker);
  });
});

describe("apply_patch for OpenAI's models", () => {
  const patch = (path: string) => `*** Begin Patch\n*** Update File: ${path}\n@@\n-old\n+new\n*** End Patch`;
  const call = (path: string, id: string): FakeStep => ({ kind: "turn", turn: { text: "Patching.", tool_calls: [{ id, name: "apply_patch", arguments: JSON.stringify({ input: patch(path) }) }] } });

  test("on the Responses API the patch tool is apply_patch with one input string; the patch applies", async () => {
    const fake = start("b_responses", [call("src/a.ts", "call_1"), { kind: "turn", turn: { text: "Done." } }]);
    const p = makeProject(config("b_responses", fake, "gpt-5.5", "", ", edit_format: patch"), { "src/a.ts": "old\n" });
    const r = await startSession(p);
    r.session.submit({ text: "change it" });
    await r.session.idle();
    expect(fake.violations).toEqual([]);
    const tools = toolsOf("b_responses", fake.requests[0]!.body);
    expect(tools.map((t) => t.name)).toContain("apply_patch");
    expect(tools.map((t) => t.name)).not.toContain("edit");
    const ap = tools.find((t) => t.name === "apply_patch")!;
    expect(ap.parameters).toMatchObject({ type: "object", properties: { input: { type: "string" } }, required: ["input"], additionalProperties: false });
    expect(Object.keys(ap.parameters.properties)).toEqual(["input"]);
    expect(readFileSync(join(p.root, "src/a.ts"), "utf8")).toBe("new\n");
  });

  test("a facet whose tools list names `edit` offers apply_patch", async () => {
    const fake = start("b_responses", [{ kind: "turn", turn: { text: "ok" } }]);
    const p = makeProject(config("b_responses", fake, "gpt-5.5", "", ", edit_format: patch"), { ".agent/facets/fixer.md": "---\ntools: [read, edit]\n---\nFix things.\n" });
    const r = await startSession(p, { facet: "fixer" });
    r.session.submit({ text: "hi" });
    await r.session.idle();
    expect(fake.violations).toEqual([]);
    const names = toolsOf("b_responses", fake.requests[0]!.body).map((t) => t.name);
    expect(names).toContain("read");
    expect(names).toContain("apply_patch");
  });

  test("a Claude model with the patch form keeps `edit` with `patch`", async () => {
    const fake = start("a_messages", [{ kind: "turn", turn: { text: "ok" } }]);
    const r = await startSession(makeProject(config("a_messages", fake, "claude-sonnet-4-5", "", ", edit_format: patch")));
    r.session.submit({ text: "hi" });
    await r.session.idle();
    const edit = toolsOf("a_messages", fake.requests[0]!.body).find((t) => t.name === "edit")!;
    expect(Object.keys(edit.parameters.properties)).toEqual(["patch"]);
  });

  test("edit(...) rules govern apply_patch file by file; apply_patch(...) rules are edit rules; headless, anything else is denied", async () => {
    const rules = ".agent/permissions.yaml";
    const fake = start("b_responses", [call("src/a.ts", "call_1"), call("docs/b.md", "call_2"), call("secret/c.txt", "call_3"), { kind: "turn", turn: { text: "Done." } }]);
    const p = makeProject(config("b_responses", fake, "gpt-5.5", "default_permission_matcher: standard\n", ", edit_format: patch"), {
      "src/a.ts": "old\n",
      "docs/b.md": "old\n",
      "secret/c.txt": "old\n",
      [rules]: "allow:\n  - edit(src/**)\n  - apply_patch(docs/**)\n",
    });
    const r = await startSession(p);
    r.session.submit({ text: "change them" });
    await r.session.idle();
    expect(fake.violations).toEqual([]);
    expect(readFileSync(join(p.root, "src/a.ts"), "utf8")).toBe("new\n");
    expect(readFileSync(join(p.root, "docs/b.md"), "utf8")).toBe("new\n");
    expect(readFileSync(join(p.root, "secret/c.txt"), "utf8")).toBe("old\n");
    const results = r.of("tool_call_completed").map((e) => [e.result.call_id, e.result.status]);
    expect(results).toEqual([
      ["call_1", "completed"],
      ["call_2", "completed"],
      ["call_3", "denied"],
    ]);
  });
});
