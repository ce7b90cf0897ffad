// Config load time for a large valid config (20 providers, 200 models, 50 tool servers) against two
// references measured in the same run on the same file: a bare `yaml.parse`, and ajv validation of
// the parsed document. Prints medians, ratios and PASS/FAIL against the target (loadConfig median < 50 ms).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import { parse as parseYaml, stringify } from "yaml";
import { loadConfig } from "../src/config/load.ts";
import { appConfigJsonSchema } from "../src/config/schema.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const WARMUP = 5;
const KINDS = ["custom_a_compatible", "custom_b_compatible", "custom_b_responses"] as const;
const PROTOCOLS = { custom_a_compatible: "a_messages", custom_b_compatible: "b_chat_completions", custom_b_responses: "b_responses" } as const;

function bigConfig(): Record<string, unknown> {
  const providers: Record<string, unknown> = {};
  for (let i = 0; i < 20; i++) {
    const kind = KINDS[i % KINDS.length]!;
    providers[`prov-${i}`] = {
      kind: { type: kind },
      url: kind === "custom_a_compatible" ? `https://p${i}.example` : `https://p${i}.example/v1`,
      auth: { type: "static_key", key: "${BENCH_API_KEY}", format: "bearer_token" },
      protocol: PROTOCOLS[kind],
      headers: { "X-Bench": String(i) },
    };
  }
  const models: Record<string, unknown> = {};
  for (let i = 0; i < 200; i++) {
    const name = `model-${i}`;
    if (i % 10 === 9) {
      models[name] = { inherits: `model-${i - 1}`, class: "mini", compaction_threshold: 0.75 };
      continue;
    }
    models[name] = {
      provider: `prov-${i % 20}`,
      provider_name: `vendor/${name}`,
      class: (["full", "mini", "nano"] as const)[i % 3],
      context_window: 32_000 * (1 + (i % 8)),
      max_tokens: 16_000,
      max_output_tokens_per_turn: 8_000,
      reasoning: i % 2 ? { type: "effort", effort_set: "standard", can_disable: true, levels: ["low", "medium", "high"], default_level: "medium" } : { type: "no_reasoning" },
      request_option_defaults: { parallel_tool_calls: true, service_tier: "auto" },
      stop_sequences: ["</end>"],
    };
  }
  const mcp_servers: Record<string, unknown> = {};
  for (let i = 0; i < 50; i++) {
    const name = `tools-${i}`;
    mcp_servers[name] = i % 2
      ? { transport: "stdio", command: `mcp-${i}`, args: ["--flag", String(i)], env: { LEVEL: "info" }, block_list: [`mcp__${name}__drop`], default_timeout_seconds: 60 }
      : { transport: "http", url: `https://mcp${i}.example/mcp`, headers: { "X-Team": "bench" }, auth: { type: "oauth", scopes: ["read"], registration: { type: "auto" } }, auth_key_name: `tools-${i}` };
  }
  return {
    version: 3,
    defaults: { full: "model-0", mini: "model-1(high)", nano: "model-2" },
    providers,
    models,
    mcp_servers,
    daemon: { log_level: "info", retry: { max_retries: 3 }, disabled_tools: ["web_search"] },
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

function time(fn: () => void): number {
  for (let i = 0; i < WARMUP; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = Bun.nanoseconds();
    fn();
    times.push((Bun.nanoseconds() - start) / 1e6);
  }
  return median(times);
}

const work = mkdtempSync(join(tmpdir(), "agent-bench-config-"));
mkdirSync(join(work, ".git"));
const file = join(work, "config.yaml");
writeFileSync(file, stringify(bigConfig()));
const text = readFileSync(file, "utf8");
// The same document as JSON, to show how much of the load is the YAML parser.
const jsonFile = join(work, "same.json");
writeFileSync(jsonFile, JSON.stringify(bigConfig(), null, 2));
const env = { HOME: work, XDG_CONFIG_HOME: join(work, ".config"), PATH: process.env.PATH, BENCH_API_KEY: "sk-bench" };
const options = { cwd: work, env, configFile: file };

const first = loadConfig(options);
if (!first.ok) {
  console.error("bench config is not valid:", first.problems.filter((p) => p.severity === "error").slice(0, 5));
  process.exit(1);
}
const ajvCheck = new Ajv2020({ strict: true, allErrors: true }).compile(appConfigJsonSchema());
const parsed = parseYaml(text);
if (!ajvCheck(parsed)) {
  console.error("ajv rejects the bench config:", ajvCheck.errors);
  process.exit(1);
}

const load = time(() => loadConfig(options));
const loadJson = time(() => loadConfig({ ...options, configFile: jsonFile }));
const yamlParse = time(() => parseYaml(text));
const ajv = time(() => ajvCheck(parsed));
rmSync(work, { recursive: true, force: true });

const pass = load < 50;
console.log(`config: ${(text.length / 1024).toFixed(0)} KB YAML, 20 providers, 200 models (${first.models.models.size} resolved), 50 tool servers; median of ${RUNS} after ${WARMUP} warmup`);
console.log(`  loadConfig            ${load.toFixed(2)} ms`);
console.log(`  loadConfig, same as JSON ${loadJson.toFixed(2)} ms`);
console.log(`  yaml.parse (reference) ${yamlParse.toFixed(2)} ms   loadConfig/parse ${(load / yamlParse).toFixed(2)}x`);
console.log(`  ajv validate (reference) ${ajv.toFixed(3)} ms   loadConfig/(parse+ajv) ${(load / (yamlParse + ajv)).toFixed(2)}x`);
console.log(`  loadConfig median ${load.toFixed(2)} ms (target < 50 ms): ${pass ? "PASS" : "FAIL"}`);
