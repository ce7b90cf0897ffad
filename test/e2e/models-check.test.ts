// `agent models check` (issue 33 item 6) from the compiled binary against strict vendor fakes: one minimal
// request per model, built as a session builds it; per model accepted or the vendor's error (status and
// message); exit 1 when one failed; never a key in the output.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import type { FakeStep, ProviderFake } from "../fakes/provider-fake.ts";
import { startStrictFake } from "../fakes/strict-fake.ts";

const KEY = "sk-check-0123456789abcdef";
const fakes: ProviderFake[] = [];

function fake(vendor: string, steps: FakeStep[], options: Parameters<typeof startStrictFake>[2] = {}): ProviderFake {
  const f = startStrictFake(vendor, steps, options);
  fakes.push(f);
  return f;
}

const ok: FakeStep = { kind: "turn", turn: { text: "OK", usage: { input: 12, output: 1 } } };

function project(config: string | null) {
  const base = mkdtempSync(join(tmpdir(), "agent-check-e2e-"));
  const root = join(base, "proj");
  mkdirSync(join(root, ".git"), { recursive: true });
  mkdirSync(join(base, "config", "agent"), { recursive: true });
  if (config !== null) writeFileSync(join(base, "config", "agent", "config.yaml"), config);
  return { root, env: { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin" } };
}

const providers = (entries: Record<string, { name: string; url: string }>) =>
  `providers:\n${Object.entries(entries).map(([key, p]) => `  ${key}: { kind: { type: catalog, name: ${p.name} }, url: "${p.url}", auth: { type: static_key, key: "${KEY}" } }\n`).join("")}`;

/** Async: the fakes answer from this process's event loop, which a synchronous spawn would block. */
async function run(args: string[], p: { root: string; env: Record<string, string> }, extra: Record<string, string> = {}) {
  const proc = Bun.spawn([BINARY, ...args], { cwd: p.root, env: { ...p.env, ...extra }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

beforeAll(() => ensureBinary(), 240_000);
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.stop();
});

describe("agent models check", () => {
  test("one model accepted, one refused with the vendor's 400: per-model report, exit 1, the vendor's message", async () => {
    const claude = fake("anthropic", [ok, ok]);
    const openai = fake("openai", [
      { kind: "error", status: 400, body: { error: { message: "The model `gpt-5.5` does not exist or you do not have access to it.", type: "invalid_request_error", param: "model", code: "model_not_found" } } },
    ]);
    const p = project(providers({ anthropic: { name: "anthropic", url: claude.url }, openai: { name: "openai", url: openai.base } }));
    const r = await run(["models", "check", "--json"], p);
    expect(r.code).toBe(1);
    const rows = JSON.parse(r.stdout).models as Record<string, unknown>[];
    // The defaults (all Anthropic's catalog defaults: the first catalog provider of the file), then OpenAI's own default.
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatchObject({ model: "anthropic/claude-sonnet-5", provider: "anthropic", sent_as: "claude-sonnet-5", defaults: ["full"], accepted: true, status: null, error: null });
    expect(rows[1]).toMatchObject({ model: "anthropic/claude-haiku-4-5", defaults: ["mini", "nano"], accepted: true });
    expect(rows[2]).toMatchObject({ model: "openai/gpt-5.5", provider: "openai", defaults: [], accepted: false, status: 400, error: "invalid_request" });
    expect(rows[2]!.message).toContain("The model `gpt-5.5` does not exist or you do not have access to it.");
    // One request each, as a session builds it: the model's default thinking form and effort, the shortest answer.
    expect(claude.requests).toHaveLength(2);
    expect(openai.requests).toHaveLength(1);
    expect(claude.violations).toEqual([]);
    const body = claude.requests.map((q) => q.body).find((b) => b.model === "claude-sonnet-5");
    expect(body).toMatchObject({ model: "claude-sonnet-5", max_tokens: 1, stream: true, output_config: { effort: "medium" } });
    expect(body.thinking).toMatchObject({ type: "adaptive" });
    expect(body.messages).toMatchObject([{ role: "user", content: [{ type: "text", text: "Reply with the single word OK." }] }]);
    expect(body.tools).toBeUndefined();
    expect(openai.requests[0]!.body).toMatchObject({ model: "gpt-5.5", max_output_tokens: 16, reasoning: { effort: "medium" } });
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  test("every model accepted: one line each, exit 0; a thinking budget gets the smallest max_tokens above it", async () => {
    const claude = fake("anthropic", [ok, ok]);
    const p = project(`${providers({ anthropic: { name: "anthropic", url: claude.url } })}defaults: { full: anthropic/claude-sonnet-5, mini: anthropic/claude-haiku-4-5 }\n`);
    const r = await run(["models", "check"], p);
    expect(r.stderr).toContain("checking 2 models");
    expect(r.stdout).toMatch(/^✓ anthropic\/claude-sonnet-5 \(default full\): accepted, [\d.]+ s\n✓ anthropic\/claude-haiku-4-5 \(default mini, nano\): accepted, [\d.]+ s\n$/);
    expect(r.code).toBe(0);
    expect(claude.violations).toEqual([]);
    const haiku = claude.requests.map((q) => q.body).find((b) => b.model === "claude-haiku-4-5");
    expect(haiku).toMatchObject({ max_tokens: 1025, thinking: { type: "enabled", budget_tokens: 1024 } });
  });

  test("MODEL checks only that model, at the level asked; the vendor's 401 echoing the key is shown without it", async () => {
    const openai = fake("openai", [
      { kind: "error", status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`, type: "invalid_request_error", param: null, code: "invalid_api_key" } } },
    ]);
    const p = project(providers({ openai: { name: "openai", url: openai.base } }));
    const r = await run(["models", "check", "openai/gpt-5.4-mini(high)"], p);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("✗ openai/gpt-5.4-mini(high): HTTP 401");
    expect(r.stdout).toContain("Incorrect API key provided");
    expect(r.stdout + r.stderr).not.toContain(KEY);
    expect(openai.requests).toHaveLength(1);
    expect(openai.requests[0]!.body).toMatchObject({ model: "gpt-5.4-mini", reasoning: { effort: "high" } });
  });

  test("an unknown model is a usage error and nothing is sent", async () => {
    const openai = fake("openai", []);
    const p = project(providers({ openai: { name: "openai", url: openai.base } }));
    const r = await run(["models", "check", "openai/gpt-nope"], p);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown model 'openai/gpt-nope'");
    expect(openai.requests).toEqual([]);
  });

  test("no config and no key: the local server a session would find is checked", async () => {
    const ollama = fake("ollama", [ok], { models: [[{ id: "qwen3:8b", object: "model", owned_by: "library" }]] });
    const r = await run(["models", "check", "--json"], project(null), { OLLAMA_BASE_URL: `${ollama.url}/v1` });
    expect(JSON.parse(r.stdout).models).toMatchObject([{ model: "ollama/qwen3:8b", provider: "ollama", defaults: ["full", "mini", "nano"], accepted: true }]);
    expect(r.code).toBe(0);
    expect(ollama.requests.map((q) => `${q.method} ${q.path}`)).toEqual(["GET /v1/models", "POST /v1/chat/completions"]);
    expect(ollama.requests[1]!.body).toMatchObject({ model: "qwen3:8b", max_tokens: 1 });
  });

  test("an unreachable provider is reported as a network failure, not as accepted", async () => {
    const p = project(providers({ openai: { name: "openai", url: "http://127.0.0.1:9/v1" } }));
    const r = await run(["models", "check", "--json"], p);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).models[0]).toMatchObject({ model: "openai/gpt-5.5", accepted: false, status: null, error: "network" });
  });
});
