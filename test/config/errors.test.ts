// The spec's Errors section (all 8 cases) and the other validation rules: each message names the key path.
import { describe, expect, test } from "bun:test";
import { configEnv, problemLines } from "../helpers/config-env.ts";
import { chooseModel } from "../../src/agent/facets/model-choice.ts";

const PROVIDERS = `
providers:
  local:
    kind: { type: custom_b_compatible }
    url: http://127.0.0.1:8080/v1
  main:
    kind: { type: catalog, name: b }
    auth: { type: static_key, key: abc }
`;

function errorsOf(yaml: string) {
  const c = configEnv();
  c.globalFile(yaml);
  return { result: c.load(), c };
}

describe("spec errors", () => {
  test("1. a model without context_window", () => {
    const { result } = errorsOf(`${PROVIDERS}\nmodels:\n  m1: { provider: local, class: full }\n`);
    expect(result.ok).toBe(false);
    expect(problemLines(result, "error")).toContain("models.m1.context_window: every model needs 'context_window' (its context size in tokens)");
  });

  test("2. a custom model without provider or class", () => {
    const { result } = errorsOf(`${PROVIDERS}\nmodels:\n  m1: { context_window: 1000 }\n`);
    const lines = problemLines(result, "error");
    expect(lines.some((l) => l.startsWith("models.m1.provider: a custom model"))).toBe(true);
    expect(lines.some((l) => l.startsWith("models.m1.class: a custom model"))).toBe(true);
  });

  test("3. default_timeout_seconds of zero", () => {
    const { result } = errorsOf(`mcp_servers:\n  fs: { transport: stdio, command: mcp-fs, default_timeout_seconds: 0 }\n`);
    expect(problemLines(result, "error")).toEqual(["mcp_servers.fs.default_timeout_seconds: zero is not allowed; omit the key for no timeout"]);
  });

  test("4. unknown or malformed system reminder names", () => {
    const { result } = errorsOf(`daemon:\n  system_reminders:\n    disabled: [context_usage, contxt_usage, "Not-Valid"]\n`);
    const lines = problemLines(result, "error");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe("daemon.system_reminders.disabled[1]: unknown system reminder 'contxt_usage' (did you mean 'context_usage'?)");
    expect(lines[1]).toStartWith("daemon.system_reminders.disabled[2]: malformed reminder name 'Not-Valid'");
  });

  test("5. an unreadable or unparseable trust_store is a hard error", () => {
    const c = configEnv();
    c.file("bad.pem", "-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n");
    c.file("empty.pem", "nothing here\n");
    for (const [file, fragment] of [["missing.pem", "no such file"], ["bad.pem", "cannot be parsed"], ["empty.pem", "contains no PEM certificate"]]) {
      c.globalFile(`daemon:\n  tls:\n    trust_store: ${file}\n`);
      const result = c.load();
      expect(result.ok).toBe(false);
      const line = problemLines(result, "error")[0]!;
      expect(line).toStartWith("daemon.tls.trust_store: ");
      expect(line).toContain(fragment!);
    }
  });

  test("5b. a readable PEM trust_store loads its certificates", async () => {
    const c = configEnv();
    const gen = Bun.spawnSync(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=test-ca", "-days", "1", "-keyout", `${c.project}/ca.key`, "-out", `${c.project}/ca.pem`]);
    expect(gen.exitCode).toBe(0);
    c.globalFile(`daemon:\n  tls:\n    trust_store: ca.pem\n`);
    const result = c.load();
    expect(problemLines(result)).toEqual([]);
    expect(result.trustStore?.certificates).toHaveLength(1);
  });

  test("6. default_level must be one of levels", () => {
    const { result } = errorsOf(`${PROVIDERS}\nmodels:\n  m1:\n    provider: local\n    class: full\n    context_window: 1000\n    reasoning: { type: effort, effort_set: s, can_disable: false, levels: [low, high], default_level: medium }\n`);
    expect(problemLines(result, "error")).toEqual(["models.m1.reasoning.default_level: 'medium' is not one of the levels"]);
    expect(result.problems[0]!.allowed).toBe("low, high");
  });

  test("7. invalid and unregistered auth_key_name values", () => {
    const server = (name: string, key: string) => `  ${name}:\n    transport: http\n    url: https://mcp.example.org/mcp\n    auth: { type: oauth }\n    auth_key_name: "${key}"\n`;
    for (const bad of ["_lead", "a__b", "sp ace", "slash/x"]) {
      const { result } = errorsOf(`mcp_servers:\n${server("s", bad)}`);
      expect(problemLines(result, "error")[0]).toStartWith("mcp_servers.s.auth_key_name: invalid value");
    }
    const { result: ok } = errorsOf(`mcp_servers:\n${server("s", "good-name_1")}`);
    expect(ok.ok).toBe(true);
    const { result: unregistered } = errorsOf(`mcp_servers:\n  s: { transport: stdio, command: x, auth_key_name: creds }\n`);
    expect(problemLines(unregistered, "error")[0]).toStartWith("mcp_servers.s.auth_key_name: is only used by servers with transport http and auth type oauth");
    const { result: shared } = errorsOf(`mcp_servers:\n${server("s", "same")}${server("t", "same")}`);
    expect(problemLines(shared, "error")[0]).toStartWith("mcp_servers.t.auth_key_name: 'same' is already used by server 's'");
  });

  test("8. a structurally required tool in disabled_tools is a warning, not an error", () => {
    const { result } = errorsOf(`daemon:\n  disabled_tools: [web_fetch, tool_search]\n`);
    expect(result.ok).toBe(true);
    expect(problemLines(result, "warning")).toEqual([
      "daemon.disabled_tools[1]: 'tool_search' is required by the agent loop and cannot be disabled; the entry is ignored",
    ]);
  });
});

describe("other validation rules", () => {
  test("inherits: unknown parent and cycles", () => {
    const { result } = errorsOf(`${PROVIDERS}\nmodels:\n  child: { inherits: b-larg }\n  x: { inherits: y }\n  y: { inherits: x }\n`);
    const lines = problemLines(result, "error");
    expect(lines).toContain("models.child.inherits: unknown parent model 'b-larg' (did you mean 'b-large'?)");
    expect(lines.some((l) => /^models\.[xy]\.inherits: inherits cycle: (x -> y -> x|y -> x -> y)$/.test(l))).toBe(true);
  });

  test("inherits copies identity, window and request defaults; the child's options win", () => {
    const { result } = errorsOf(`${PROVIDERS}\nmodels:\n  base:\n    provider: local\n    class: mini\n    context_window: 64000\n    request_option_defaults: { temperature: "0.2", store: false }\n  child:\n    inherits: base\n    request_option_defaults: { temperature: "0.9" }\n`);
    expect(result.ok).toBe(true);
    const child = result.models.models.get("child")!;
    expect(child.provider).toBe("local");
    expect(child.class).toBe("mini");
    expect(child.context_window).toBe(64000);
    expect(child.request_option_defaults).toEqual({ temperature: "0.9", store: false });
  });

  test("provider must name a configured provider; url required for custom kinds; header names valid", () => {
    const { result } = errorsOf(`providers:\n  p:\n    kind: { type: custom_a_compatible }\n    headers: { "bad header": x, X-Good: y }\nmodels:\n  m: { provider: q, class: full, context_window: 10 }\n`);
    const lines = problemLines(result, "error");
    expect(lines).toContain("providers.p.url: a provider of kind custom_a_compatible needs 'url' (the base address of its API)");
    expect(lines).toContain(`providers.p.headers["bad header"]: 'bad header' is not a valid HTTP header name`);
    expect(lines).toContain("models.m.provider: 'q' is not a configured provider (did you mean 'p'?)");
  });

  test("the provider layer's rules are reported as config problems", () => {
    const { result } = errorsOf(`providers:\n  m:\n    kind: { type: custom_a_compatible }\n    url: https://llm.internal.example/v1\n  r:\n    kind: { type: custom_b_responses }\n    protocol: b_chat_completions\n    url: https://llm.internal.example\n  g:\n    kind: { type: catalog, name: g }\n`);
    const byPath = Object.fromEntries(result.problems.map((p) => [p.path, p.message]));
    expect(byPath["providers.m.url"]).toBeString();
    expect(byPath["providers.r.protocol"]).toBe("protocol 'b_chat_completions' does not fit kind 'custom_b_responses' (allowed dialects: b_responses, test)");
    expect(byPath["providers.g.url"]).toBe("url is required: protocol 'g_chat_completions' has no default URL");
  });

  test("max_output_tokens_per_turn must not exceed max_tokens", () => {
    const { result } = errorsOf(`${PROVIDERS}\nmodels:\n  m: { provider: local, class: full, context_window: 100000, max_tokens: 1000, max_output_tokens_per_turn: 2000 }\n`);
    expect(problemLines(result, "error")).toEqual(["models.m.max_output_tokens_per_turn: 2000 exceeds max_tokens (1000)"]);
  });

  test("a model chosen by reference (/model, --model) has its level checked against the model's levels", () => {
    const { result } = errorsOf(`${PROVIDERS}\nmodels:\n  plain: { provider: local, class: full, context_window: 32000 }\n`);
    if (!result.ok) throw new Error("the config should load");
    expect(chooseModel(result, "main/gpt-5.5(high)").effort).toBe("high");
    expect(() => chooseModel(result, "main/gpt-5.5(hgh)")).toThrow(/^model 'main\/gpt-5.5' has no reasoning level 'hgh'; its levels: .*high/);
    expect(() => chooseModel(result, "plain(high)")).toThrow("model 'plain' takes no reasoning level ('high' was asked); use 'plain'");
  });

  test("defaults: effort suffix parsed and checked against the model's levels", () => {
    const good = errorsOf(`${PROVIDERS}\ndefaults:\n  full: b-large(high)\n  nano: b-nano\n`).result;
    expect(good.ok).toBe(true);
    // `b-large` / `b-nano` are the letter catalog's names: aliases of OpenAI's full and nano models.
    expect(good.defaults.full).toEqual({ model: "main/gpt-5.5", effort: "high", source: "configured" });
    expect(good.defaults.mini).toEqual({ model: "main/gpt-5.5", effort: "high", source: "fallback:full" });
    expect(good.defaults.nano).toEqual({ model: "main/gpt-5.4-nano", effort: "medium", source: "configured" });
    const bad = errorsOf(`${PROVIDERS}\ndefaults:\n  full: main/gpt-5.5(hgh)\n  mini: nope\n`).result;
    expect(problemLines(bad, "error")).toEqual([
      "defaults.full: 'hgh' is not an effort level of model 'main/gpt-5.5' (did you mean 'high'?)",
      "defaults.mini: unknown model 'nope'",
    ]);
  });

  test("request option strings are limited to 512 bytes of UTF-8, not characters", () => {
    const ok = "é".repeat(256); // 512 bytes
    const tooLong = "é".repeat(257); // 514 bytes, 257 characters
    const { result } = errorsOf(`${PROVIDERS}\nmodels:\n  m: { provider: local, class: full, context_window: 10, request_option_defaults: { a: "${ok}", b: "${tooLong}" } }\n`);
    expect(problemLines(result, "error")).toEqual(["models.m.request_option_defaults.b: is 514 bytes of UTF-8"]);
  });

  test("prompt sources: agent:// references, project files, and escapes", () => {
    const c = configEnv();
    c.file("prompts/plan.md", "plan");
    Bun.spawnSync(["ln", "-s", "/etc/hostname", `${c.project}/prompts/escape.md`]);
    c.globalFile(`facets:\n  a: { source: "agent://facets/plan" }\n  b: { source: "agent://facets/nope" }\n  c: { source: prompts/plan.md }\n  d: { source: ../outside.md }\n  e: { source: /etc/passwd }\n  f: { source: prompts/escape.md }\n  g: { source: prompts/missing.md }\n`);
    const lines = problemLines(c.load(), "error");
    expect(lines).toEqual([
      "facets.b.source: unknown shipped reference 'agent://facets/nope' (did you mean 'agent://facets/plan'?)",
      "facets.d.source: '../outside.md' leads outside the project",
      "facets.e.source: '/etc/passwd' must be relative to the project, not absolute",
      "facets.f.source: 'prompts/escape.md' is a symlink that leads outside the project",
      "facets.g.source: 'prompts/missing.md' no such file in the project (prompts/missing.md)",
    ]);
  });

  test("follow_symlinks_for_configs: false rejects symlinked sources inside the project", () => {
    const c = configEnv();
    c.file("prompts/real.md", "x");
    Bun.spawnSync(["ln", "-s", "real.md", `${c.project}/prompts/link.md`]);
    c.globalFile(`daemon: { follow_symlinks_for_configs: false }\nsubagents:\n  s: { source: prompts/link.md }\n`);
    expect(problemLines(c.load(), "error")).toEqual([
      "subagents.s.source: 'prompts/link.md' is a symlink, and daemon.follow_symlinks_for_configs is off",
    ]);
  });

  test("schema errors name the key path, the found value and what is allowed", () => {
    const { result } = errorsOf(`version: 300\nproviders:\n  p:\n    kind: { type: custom_c }\n    protocol: b_chat_completion\nmodels:\n  m: { compaction_threshold: 0, context_window: -1 }\npermissions: { secret_words: [a], extra: 1 }\n`);
    const byPath = Object.fromEntries(result.problems.map((p) => [p.path, p]));
    expect(byPath.version!.message).toBe("300 is out of range");
    expect(byPath.version!.allowed).toBe("at least 0 and at most 255");
    expect(byPath["providers.p.kind.type"]!.message).toBe(`unknown type "custom_c"`);
    expect(byPath["providers.p.kind.type"]!.allowed).toBe("catalog, custom_a_compatible, custom_b_compatible, custom_b_responses");
    expect(byPath["providers.p.protocol"]!.message).toBe(`invalid value "b_chat_completion" (did you mean 'b_chat_completions'?)`);
    expect(byPath["models.m.compaction_threshold"]!.allowed).toBe("greater than 0 and at most 1");
    expect(byPath["permissions.extra"]!.severity).toBe("error");
  });

  test("every problem is reported in one pass with file and line:column", () => {
    const c = configEnv();
    const file = c.globalFile(`# comment\nmodels:\n  a: { context_window: 5 }\nmcp_servers:\n  s: { transport: stdio, command: x, default_timeout_seconds: 0 }\n`);
    const result = c.load();
    expect(result.problems.filter((p) => p.severity === "error").length).toBeGreaterThanOrEqual(3);
    const timeout = result.problems.find((p) => p.path === "mcp_servers.s.default_timeout_seconds")!;
    expect(timeout.file).toBe(file);
    expect(timeout.line).toBe(5);
    expect(timeout.column).toBe(38);
  });

  test("list bounds of the schema hold in the loader as in a JSON Schema validator (notify: [] was accepted, ajv refused it)", () => {
    expect(problemLines(errorsOf(`notify: []\n`).result, "error")).toEqual(["notify: must not be an empty list"]);
    expect(problemLines(errorsOf(`daemon:\n  instruction_files: []\n`).result, "error")).toEqual(["daemon.instruction_files: must not be an empty list"]);
    expect(problemLines(errorsOf(`notify_events:\n  turn_completed: [program, program]\n`).result, "error")).toEqual(["notify_events.turn_completed: lists an item twice"]);
  });

  test("unknown keys are warnings with a suggestion", () => {
    const { result } = errorsOf(`daemon:\n  max_tool_turn: 5\n`);
    expect(result.ok).toBe(true);
    expect(problemLines(result, "warning")).toEqual(["daemon.max_tool_turn: unknown key 'max_tool_turn' is ignored (did you mean 'max_tool_turns'?)"]);
  });
});
