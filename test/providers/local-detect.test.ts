// A local inference server found at start when no key and no config name a provider: each catalog
// entry's /models probed on loopback only, in catalog order, within a budget; what it finds configures
// the provider and its models through the environment the daemon inherits.
import { afterEach, describe, expect, test } from "bun:test";
import { detectLocalServer, DETECTED_LOCAL_VAR, LOCAL_DEFAULT_CONTEXT_WINDOW, localCandidates, useRunningLocalServer, wantsLocalServer } from "../../src/providers/local-detect.ts";
import { envChoiceLine } from "../../src/providers/env-providers.ts";
import { configEnv } from "../helpers/config-env.ts";

const servers: { stop(force?: boolean): unknown }[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.stop(true);
});

/** A server on 127.0.0.1:0 answering GET /v1/models with `body` (after `delayMs`). */
function modelsServer(body: unknown, delayMs = 0, status = 200) {
  const hits: string[] = [];
  const s = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      hits.push(new URL(req.url).pathname);
      if (delayMs) await Bun.sleep(delayMs);
      return Response.json(body, { status });
    },
  });
  servers.push(s);
  return { url: `http://127.0.0.1:${s.port}/v1`, hits };
}

/** A loopback port nobody listens on (bound, then closed). */
function closedPort(): string {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = s.port;
  s.stop(true);
  return `http://127.0.0.1:${port}/v1`;
}

const all = (over: Record<string, string>) => ({ OLLAMA_BASE_URL: closedPort(), LMSTUDIO_BASE_URL: closedPort(), VLLM_BASE_URL: closedPort(), LLAMACPP_BASE_URL: closedPort(), ...over });

describe("detectLocalServer", () => {
  test("the default ports are the ones probed (Ollama 11434, LM Studio 1234, vLLM 8000, llama.cpp 8080), loopback only", () => {
    expect(localCandidates({}).map((c) => c.url)).toEqual(["http://127.0.0.1:11434/v1", "http://127.0.0.1:1234/v1", "http://127.0.0.1:8000/v1", "http://127.0.0.1:8080/v1"]);
    expect(localCandidates({ OLLAMA_BASE_URL: "http://gpu-box.lan:11434/v1" }).map((c) => c.entry.name)).toEqual(["lmstudio", "vllm", "llamacpp"]);
  });

  test("finds the server that lists models; each family's window field is read; catalog order decides between two", async () => {
    const vllm = modelsServer({ object: "list", data: [{ id: "Qwen/Qwen3-8B", object: "model", max_model_len: 40960 }] });
    const llama = modelsServer({ object: "list", data: [{ id: "gguf-model", meta: { n_ctx_train: 131072 } }] });
    expect(await detectLocalServer(all({ VLLM_BASE_URL: vllm.url, LLAMACPP_BASE_URL: llama.url }), { budgetMs: 500 })).toEqual({
      name: "vllm",
      title: "vLLM (local)",
      url: vllm.url,
      models: [{ id: "Qwen/Qwen3-8B", context_window: 40960 }],
    });
    expect(llama.hits).toEqual(["/v1/models"]);
    const ollama = modelsServer({ object: "list", data: [{ id: "llama3.2:latest", object: "model", owned_by: "library" }] });
    expect(await detectLocalServer(all({ OLLAMA_BASE_URL: ollama.url, LLAMACPP_BASE_URL: llama.url }), { budgetMs: 500 })).toMatchObject({ name: "ollama", models: [{ id: "llama3.2:latest", context_window: null }] });
  });

  test("a web server that is not a model server (404, HTML, an empty list) is not taken", async () => {
    const notFound = modelsServer({ error: "no" }, 0, 404);
    const empty = modelsServer({ data: [] });
    const other = modelsServer({ hello: "world" });
    expect(await detectLocalServer(all({ OLLAMA_BASE_URL: notFound.url, LMSTUDIO_BASE_URL: empty.url, VLLM_BASE_URL: other.url }), { budgetMs: 500 })).toBeNull();
  });

  // No timing assertions (a loaded machine would fail them): a budget far beyond the test's timeout shows
  // that refused ports do not wait for it, and a server that never answers shows the budget ends the probe.
  test("bounded: nothing listening answers without waiting for the budget; a server that never answers is abandoned at the budget", async () => {
    let t = performance.now();
    expect(await detectLocalServer(all({}), { budgetMs: 3_600_000 })).toBeNull();
    const refused = performance.now() - t;
    const silent = modelsServer({ data: [{ id: "m" }] }, 3_600_000);
    t = performance.now();
    expect(await detectLocalServer(all({ OLLAMA_BASE_URL: silent.url }), { budgetMs: 40 })).toBeNull();
    const abandoned = performance.now() - t;
    console.log(`probe: nothing listening ${refused.toFixed(1)} ms; silent server abandoned after ${abandoned.toFixed(1)} ms (budget 40)`);
  });
});

describe("a running local server configures the start", () => {
  test("no config and no key: the server's provider, its models (window reported or the default) and the first as default; the line says so", async () => {
    const ollama = modelsServer({ object: "list", data: [{ id: "qwen3:8b" }, { id: "llama3.2:latest", context_length: 8192 }] });
    const c = configEnv();
    const env = { ...c.env, ...all({ OLLAMA_BASE_URL: ollama.url }) } as Record<string, string>;
    const before = c.load({ env });
    expect(wantsLocalServer(before)).toBe(true);
    expect(await useRunningLocalServer(env, { budgetMs: 500 })).toMatchObject({ name: "ollama" });
    expect(JSON.parse(env[DETECTED_LOCAL_VAR]!)).toMatchObject({ name: "ollama", url: ollama.url });
    const loaded = c.load({ env });
    expect(loaded.ok).toBe(true);
    expect(loaded.defaults.full!.model).toBe("ollama/qwen3:8b");
    expect(loaded.models.models.get("ollama/qwen3:8b")).toMatchObject({ provider: "ollama", provider_name: "qwen3:8b", context_window: LOCAL_DEFAULT_CONTEXT_WINDOW });
    expect(loaded.models.models.get("ollama/llama3.2:latest")!.context_window).toBe(8192);
    expect(envChoiceLine(loaded.fromEnvironment!, "ollama/qwen3:8b")).toStartWith(`using ollama/qwen3:8b (Ollama (local) found running at ${ollama.url}, no key or config file) · change it:`);
  });

  test("a key, or a config file with a provider, means no probe", () => {
    const c = configEnv();
    expect(wantsLocalServer(c.load({ env: { ...c.env, GROQ_API_KEY: "k" } }))).toBe(false);
    c.globalFile("providers:\n  mine: { kind: { type: custom_b_compatible }, url: \"http://127.0.0.1:9/v1\", auth: { type: no_auth } }\n");
    expect(wantsLocalServer(c.load({}))).toBe(false);
  });

  test("a forged variable pointing away from loopback is ignored", () => {
    const c = configEnv();
    const loaded = c.load({ env: { ...c.env, [DETECTED_LOCAL_VAR]: JSON.stringify({ name: "ollama", title: "x", url: "http://evil.example/v1", models: [{ id: "m", context_window: 1 }] }) } });
    expect(loaded.defaults.full).toBeFalsy();
  });
});
