// "A key is all it takes": the compiled binary with no config file, only a vendor's key variable and the
// base-URL variable its official SDK honours, answers through a fake listening at that vendor's real
// path layout. The official SDKs run against the same fakes with the same base values, so the fakes
// (and our reading of the variables) are what the vendors' own clients expect.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { type FakeStep, type ProviderFake, startProviderFake } from "../fakes/provider-fake.ts";
import { catalogProvider } from "../../src/providers/catalog.ts";
import { modelCatalog } from "../../src/providers/model-catalog.ts";

const KEY = "sk-test-0123456789abcdef";
const fakes: ProviderFake[] = [];

function fake(dialect: Parameters<typeof startProviderFake>[0], steps: FakeStep[], prefix?: string): ProviderFake {
  const f = startProviderFake(dialect, steps, prefix ? { prefix } : {});
  fakes.push(f);
  return f;
}

const answer = (text: string): FakeStep => ({ kind: "turn", turn: { text, usage: { input: 12, output: 5 } } });

function project(vars: Record<string, string>, config?: string) {
  const base = mkdtempSync(join(tmpdir(), "agent-env-e2e-"));
  const root = join(base, "proj");
  mkdirSync(join(root, ".git"), { recursive: true });
  if (config) {
    mkdirSync(join(base, "config", "agent"), { recursive: true });
    writeFileSync(join(base, "config", "agent", "config.yaml"), config);
  }
  const env = { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin", ...vars };
  return { root, env };
}

/** Async: the fakes answer from this process's event loop, which a synchronous spawn would block. */
async function run(args: string[], p: { root: string; env: Record<string, string> }) {
  const proc = Bun.spawn([BINARY, ...args], { cwd: p.root, env: p.env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

beforeAll(() => ensureBinary(), 240_000);
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.stop();
});

describe("no config file: the key variable chooses the provider", () => {
  test("ANTHROPIC_API_KEY + ANTHROPIC_BASE_URL: Messages at /v1/messages with x-api-key and anthropic-version", async () => {
    const f = fake("a_messages", [answer("Hello from Claude."), answer("Hello again.")]);
    const r = await run(["exec", "hi"], project({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: f.url }));
    expect(r.stderr).not.toContain(KEY);
    expect(r.stdout).toBe("Hello from Claude.\n");
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`using anthropic/claude-sonnet-5 (Anthropic, key from ANTHROPIC_API_KEY at ${f.url} (ANTHROPIC_BASE_URL), no config file)`);
    expect(r.stderr).toContain("change it: --model PROVIDER/MODEL");
    const req = f.requests[0]!;
    expect(req.path).toBe("/v1/messages");
    expect(req.headers["x-api-key"]).toBe(KEY);
    expect(req.headers["anthropic-version"]).toBe("2023-06-01");
    expect(req.headers.authorization).toBeUndefined();
    expect(req.body.model).toBe("claude-sonnet-5");
    expect(req.body.stream).toBe(true);
    expect(f.violations).toEqual([]);
    // The official SDK, given the same base value, reaches the same path and reads the same stream.
    const sdk = new Anthropic({ apiKey: KEY, baseURL: f.url, maxRetries: 0 });
    const message = await sdk.messages.stream({ model: "claude-sonnet-5", max_tokens: 64, messages: [{ role: "user", content: "hi" }] }).finalMessage();
    expect(message.content.map((b) => (b.type === "text" ? b.text : b.type))).toEqual(["Hello again."]);
    expect(message.stop_reason).toBe("end_turn");
    expect(f.requests[1]!.path).toBe("/v1/messages");
  });

  test("OPENAI_API_KEY + OPENAI_BASE_URL: Responses at /v1/responses with a bearer key", async () => {
    const f = fake("b_responses", [answer("Hello from GPT."), answer("Hello again.")]);
    const r = await run(["exec", "--json", "hi"], project({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: f.base }));
    expect(r.stdout + r.stderr).not.toContain(KEY);
    expect(r.code).toBe(0);
    const events = r.stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as { type: string; level?: string; message?: string; model?: string });
    expect(events[0]).toMatchObject({ type: "session", model: "openai/gpt-5.5" });
    expect(events[1]).toMatchObject({ type: "notice", level: "info" });
    expect(events[1]!.message).toContain("key from OPENAI_API_KEY");
    const req = f.requests[0]!;
    expect(req.path).toBe("/v1/responses");
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req.body.model).toBe("gpt-5.5");
    expect(f.violations).toEqual([]);
    const sdk = new OpenAI({ apiKey: KEY, baseURL: f.base, maxRetries: 0 });
    const response = await sdk.responses.stream({ model: "gpt-5.5", input: "hi" }).finalResponse();
    expect(response.output_text).toBe("Hello again.");
    expect(f.requests[1]!.path).toBe("/v1/responses");
  });

  test("OPENROUTER_API_KEY: Chat Completions under /api/v1 with the attribution header", async () => {
    const f = fake("b_chat_completions", [answer("Hello from the router."), answer("Hello again.")], "/api");
    const r = await run(["exec", "hi"], project({ OPENROUTER_API_KEY: KEY, OPENROUTER_BASE_URL: f.base }));
    expect(r.stderr).not.toContain(KEY);
    expect(r.stdout).toBe("Hello from the router.\n");
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("using openrouter/anthropic/claude-sonnet-5 (OpenRouter, key from OPENROUTER_API_KEY");
    const req = f.requests[0]!;
    expect(req.path).toBe("/api/v1/chat/completions");
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req.headers["x-title"]).toBe("agent");
    expect(req.body.model).toBe("anthropic/claude-sonnet-5");
    expect(req.body.stream_options).toEqual({ include_usage: true });
    expect(f.violations).toEqual([]);
    const sdk = new OpenAI({ apiKey: KEY, baseURL: f.base, maxRetries: 0 });
    const completion = await sdk.chat.completions.stream({ model: "anthropic/claude-sonnet-5", messages: [{ role: "user", content: "hi" }] }).finalChatCompletion();
    expect(completion.choices[0]!.message.content).toBe("Hello again.");
  });

  test("several keys: the documented order picks Anthropic, the line names the others, --model reaches them", async () => {
    const a = fake("a_messages", []);
    const o = fake("b_responses", [answer("Picked by --model.")]);
    const p = project({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: a.url, OPENAI_API_KEY: `${KEY}-o`, OPENAI_BASE_URL: o.base });
    const r = await run(["exec", "--model", "openai/gpt-5.4-mini", "hi"], p);
    expect(r.stdout).toBe("Picked by --model.\n");
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("using openai/gpt-5.4-mini (Anthropic, key from ANTHROPIC_API_KEY");
    expect(r.stderr).toContain("also usable: openai (OPENAI_API_KEY)");
    expect(a.requests).toEqual([]);
    expect(o.requests[0]!.body.model).toBe("gpt-5.4-mini");
    expect(o.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}-o`);
  });

  test("a config file that names a provider wins over the environment", async () => {
    const a = fake("a_messages", []);
    const p = project({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: a.url }, "providers:\n  offline: { kind: { type: catalog, name: test }, url: script.yaml }\n");
    writeFileSync(join(p.root, "script.yaml"), "responses:\n  - text: From the script.\n");
    const r = await run(["exec", "hi"], p);
    expect(r.stdout).toBe("From the script.\n");
    expect(r.stderr).not.toContain("key from");
    expect(a.requests).toEqual([]);
  });

  test("an Azure key without its resource address says what is missing", async () => {
    const r = await run(["exec", "hi"], project({ AZURE_OPENAI_API_KEY: KEY }));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("AZURE_OPENAI_API_KEY is set, but the azure provider also needs AZURE_OPENAI_ENDPOINT");
    expect(r.stderr).not.toContain(KEY);
  });

  test("no key and no config: a local server answering on its port (Ollama's, moved by OLLAMA_BASE_URL) is found and used", async () => {
    const f = startProviderFake("b_chat_completions", [answer("Hello from the local model.")], { models: [[{ id: "qwen3:8b", object: "model", owned_by: "library" }]] });
    fakes.push(f);
    const r = await run(["exec", "hi"], project({ OLLAMA_BASE_URL: `${f.url}/v1` }));
    expect(r.stdout).toBe("Hello from the local model.\n");
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`using ollama/qwen3:8b (Ollama (local) found running at ${f.url}/v1, no key or config file)`);
    expect(f.requests.map((q) => `${q.method} ${q.path}`)).toEqual(["GET /v1/models", "POST /v1/chat/completions"]);
    expect(f.requests[1]!.body.model).toBe("qwen3:8b");
  });

  test("agent exec --json ends with the run's cost at the model's models.dev prices", async () => {
    const f = fake("a_messages", [{ kind: "turn", turn: { text: "Priced.", usage: { input: 120_000, output: 5_000 } } }]);
    const r = await run(["exec", "--json", "hi"], project({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: f.url }));
    expect(r.code).toBe(0);
    const events = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    const price = modelCatalog(null).models(catalogProvider("anthropic")!).find((m) => m.provider_name === "claude-sonnet-5")!.cost!;
    expect(events.at(-1)).toEqual({ type: "cost", currency: "USD", usd: Math.round(((120_000 * price.input + 5_000 * price.output) / 1e6) * 1e6) / 1e6, priced_messages: 1, unpriced_messages: 0 });
  });
});
