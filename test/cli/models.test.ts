// `agent models` and `agent models refresh` as a user runs them: what is usable and why not, the data's
// date, one provider's models, JSON for scripts, and a refresh from a local server into the cache.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Server } from "bun";
import { runCli } from "../../src/cli/run.ts";
import { configEnv } from "../helpers/config-env.ts";
import { captureIo } from "../helpers/io.ts";

const KEY = "sk-ant-models-0123456789";
const servers: Server<undefined>[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop(true);
});

async function run(c: ReturnType<typeof configEnv>, argv: string[], env: Record<string, string> = {}) {
  const io = captureIo({ cwd: c.project, env: { ...c.env, XDG_DATA_HOME: join(c.home, "data"), ...env } });
  const code = await runCli(argv, io);
  return { code, out: io.stdout, err: io.stderr };
}

function serve(handler: (req: Request) => Response): string {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: handler });
  servers.push(s);
  return `http://127.0.0.1:${s.port}`;
}

describe("agent models", () => {
  test("says which providers are ready and why the others are not, with the data's date; never the key", async () => {
    const c = configEnv();
    const r = await run(c, ["models"], { ANTHROPIC_API_KEY: KEY });
    expect(r.code).toBe(0);
    expect(r.out).toStartWith("Model data of 2026-07-01 from models.dev (https://models.dev, github.com/anomalyco/models.dev, MIT licence), built in;");
    expect(r.out).toContain("✓ anthropic — Anthropic: ready (key from ANTHROPIC_API_KEY)");
    expect(r.out).toMatch(/  anthropic\/claude-sonnet-5  \[full, default full, vision\]  context 1M, output 128k, reasoning low\/medium\/high\/xhigh\/max \(medium\) · \$2\/\$10 per M in\/out/);
    expect(r.out).toContain("✗ openai — OpenAI: not usable (no key: set OPENAI_API_KEY (get one at https://platform.openai.com/api-keys))");
    expect(r.out).toContain("✗ openrouter — OpenRouter: not usable (no key: set OPENROUTER_API_KEY");
    expect(r.out).not.toContain("openai/gpt-5.5");
    expect(r.out + r.err).not.toContain(KEY);
  });

  test("--provider lists that provider's models even when it is not usable; an unknown name is a usage error with a suggestion", async () => {
    const c = configEnv();
    const r = await run(c, ["models", "--provider", "deepseek"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("✗ deepseek — DeepSeek: not usable (no key: set DEEPSEEK_API_KEY");
    expect(r.out).toContain("  deepseek/deepseek-v4-pro  [full]");
    expect(r.out).not.toContain("anthropic");
    const bad = await run(c, ["models", "--provider", "deepsek"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("unknown provider 'deepsek' (did you mean 'deepseek'?)");
  });

  test("--json: the snapshot and every provider with usable, reason and models", async () => {
    const c = configEnv();
    const r = await run(c, ["models", "--json"], { OPENAI_API_KEY: KEY });
    const body = JSON.parse(r.out);
    expect(body.snapshot).toMatchObject({ date: "2026-07-01", origin: "builtin", revision: "f3fc692299671838c7c65fd8126bf84d81a2e817" });
    const openai = body.providers.find((p: { name: string }) => p.name === "openai");
    expect(openai).toMatchObject({ usable: true, reason: "key from OPENAI_API_KEY", protocol: "b_responses", url: "https://api.openai.com/v1", configured_as: ["openai"] });
    expect(openai.models.find((m: { key: string }) => m.key === "openai/gpt-5.5")).toMatchObject({
      id: "gpt-5.5", name: "GPT-5.5", class: "full", context_window: 1050000, max_output_tokens: 128000, default_for: ["full"],
      cost: { input: 5, output: 30, cache_read: 0.5, cache_write: null },
    });
    const anthropic = body.providers.find((p: { name: string }) => p.name === "anthropic");
    expect(anthropic).toMatchObject({ usable: false, models: [], env: ["ANTHROPIC_API_KEY"] });
    expect(r.out).not.toContain(KEY);
  });

  test("a key set while a config file names other providers: says to add it there", async () => {
    const c = configEnv();
    c.globalFile("providers:\n  local: { kind: { type: custom_b_compatible }, url: 'http://127.0.0.1:9/v1' }\nmodels:\n  mine: { provider: local, class: full, context_window: 32000 }\n");
    const r = await run(c, ["models"], { ANTHROPIC_API_KEY: KEY });
    expect(r.out).toContain("✗ anthropic — Anthropic: not usable (ANTHROPIC_API_KEY is set, but a config file names other providers: add this one there)");
    expect(r.out).toContain("✓ local — custom (custom_b_compatible): ready (configured as 'local')");
    expect(r.out).toContain("  mine  [full, default full, default mini, default nano]  context 32k");
  });

  test("local servers: one answering on its address is found, one not running is named", async () => {
    const url = serve(() => Response.json({ data: [] }));
    const c = configEnv();
    const r = await run(c, ["models", "--provider", "llamacpp"], { LLAMACPP_BASE_URL: `${url}/v1` });
    expect(r.out).toContain(`a server answers at ${url}/v1 but it is not configured: add providers: { llamacpp: { kind: { type: catalog, name: llamacpp }, auth: { type: no_auth } } }`);
    const gone = await run(c, ["models", "--provider", "vllm"], { VLLM_BASE_URL: "http://127.0.0.1:9/v1" });
    expect(gone.out).toContain("not reachable: no server answers at http://127.0.0.1:9/v1");
  });
});

describe("agent models refresh", () => {
  const api = {
    anthropic: {
      id: "anthropic", name: "Anthropic", env: ["ANTHROPIC_API_KEY"],
      models: {
        "claude-sonnet-5": { id: "claude-sonnet-5", name: "Claude Sonnet 5", reasoning: true, reasoning_options: [{ type: "effort", values: ["low", "high"] }], tool_call: true, attachment: true, modalities: { input: ["text", "image"], output: ["text"] }, limit: { context: 2_000_000, output: 64_000 }, cost: { input: 1, output: 2 } },
        "claude-new-1": { id: "claude-new-1", name: "Claude New 1", reasoning: false, tool_call: true, limit: { context: 300_000, output: 8_000 } },
        "claude-no-tools": { id: "claude-no-tools", name: "No tools", reasoning: false, tool_call: false, limit: { context: 1000, output: 100 } },
      },
    },
  };

  test("downloads api.json into the data root's cache; later listings use it and say so", async () => {
    const url = serve((req) => (new URL(req.url).pathname === "/api.json" ? Response.json(api) : new Response("no", { status: 404 })));
    const c = configEnv();
    const dataHome = join(c.home, "data");
    const r = await run(c, ["models", "refresh", "--url", `${url}/api.json`]);
    expect(r.code).toBe(0);
    const cache = join(dataHome, "agent", "cache", "models.dev");
    expect(r.out).toMatch(new RegExp(`^Model data of \\d{4}-\\d{2}-\\d{2} saved: 2 models of \\d+ providers \\(${cache}/snapshot.json\\)\\.\\n$`));
    expect(JSON.parse(readFileSync(join(cache, "api.json"), "utf8"))).toEqual(api);
    const after = await run(c, ["models", "--json"], { ANTHROPIC_API_KEY: KEY });
    const body = JSON.parse(after.out);
    expect(body.snapshot).toMatchObject({ origin: "cache", path: join(cache, "snapshot.json") });
    const models = body.providers.find((p: { name: string }) => p.name === "anthropic").models;
    expect(models.map((m: { key: string }) => m.key).sort()).toEqual(["anthropic/claude-new-1", "anthropic/claude-sonnet-5"]);
    expect(models.find((m: { key: string }) => m.key === "anthropic/claude-sonnet-5")).toMatchObject({ context_window: 2_000_000, reasoning: "low/high (low)" });
  });

  test("a failed or wrong download leaves the model data as it was (exit 1)", async () => {
    const url = serve((req) => (new URL(req.url).pathname === "/bad" ? Response.json({ hello: "world" }) : new Response("down", { status: 503 })));
    const c = configEnv();
    const down = await run(c, ["models", "refresh", "--url", `${url}/api.json`]);
    expect(down.code).toBe(1);
    expect(down.err).toContain(`models refresh: ${url}/api.json answered HTTP 503; the model data was not changed`);
    const wrong = await run(c, ["models", "refresh", "--url", `${url}/bad`]);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain("did not return models.dev's api.json");
    expect(existsSync(join(c.home, "data", "agent", "cache", "models.dev", "snapshot.json"))).toBe(false);
    const list = JSON.parse((await run(c, ["models", "--json"])).out);
    expect(list.snapshot.origin).toBe("builtin");
  });
});
