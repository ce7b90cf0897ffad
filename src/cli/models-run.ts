// `agent models [--provider P] [--json]` and `agent models refresh [--url URL]`.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { dataRoot } from "../config/files.ts";
import { loadConfig } from "../config/load.ts";
import type { ResolvedModel } from "../config/models.ts";
import { type CatalogProvider, CATALOG_PROVIDERS, catalogNames, catalogProvider } from "../providers/catalog.ts";
import { CACHED_SNAPSHOT, type CatalogModel, modelCatalog, modelsCacheDir } from "../providers/model-catalog.ts";
import { compactCatalog, isModelsDevApi, MODELS_DEV_API_URL } from "../providers/models-dev.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { CliError, EXIT, type Io, type ParsedArgs, UsageError } from "../util/cli-command.ts";
import { didYouMean } from "../util/did-you-mean.ts";

interface ModelRow {
  key: string;
  id: string;
  name: string | null;
  class: string;
  context_window: number;
  max_output_tokens: number | null;
  reasoning: string;
  vision: boolean;
  /** USD per million tokens. */
  cost: CatalogModel["cost"];
  default_for: string[];
}

interface ProviderRow {
  name: string;
  title: string;
  protocol: string;
  url: string | null;
  env: readonly string[];
  usable: boolean;
  /** Why it is usable (where the key came from) or why not (what to do). */
  reason: string;
  /** Config keys of the providers using this entry. */
  configured_as: string[];
  models: ModelRow[];
}

const set = (env: Io["env"], name: string) => (env[name]?.trim() ? name : undefined);

/** A local server answers at all (any HTTP status) within a short wait; loopback only. */
async function answers(url: string): Promise<boolean> {
  try {
    await fetch(`${url.replace(/\/+$/, "")}/models`, { signal: AbortSignal.timeout(400), redirect: "manual" });
    return true;
  } catch {
    return false;
  }
}

function reasoningText(m: Pick<ResolvedModel, "reasoning">): string {
  const r = m.reasoning;
  if (r.type === "no_reasoning") return "-";
  if (r.type === "thinking") return "thinking";
  return `${r.levels.join("/")}${r.default_level ? ` (${r.default_level})` : ""}`;
}

function row(key: string, m: Pick<ResolvedModel, "provider_name" | "class" | "context_window" | "max_tokens" | "reasoning" | "supports_vision">, cat: CatalogModel | undefined, defaults: string[]): ModelRow {
  return {
    key, id: m.provider_name, name: cat?.title ?? null, class: m.class, context_window: m.context_window,
    max_output_tokens: m.max_tokens ?? null, reasoning: reasoningText(m), vision: m.supports_vision, cost: cat?.cost ?? null, default_for: defaults,
  };
}

async function unusableReason(entry: CatalogProvider, io: Io, fromFile: boolean): Promise<string> {
  if (entry.protocol === "test") return "the offline demo: agent --demo";
  if (entry.auth === "device_a") return "needs a device login: configure it with auth: {type: device_a, profile: NAME, issuer: URL, client_id: ID}, then agent auth provider login";
  if (entry.auth === "none") {
    const url = (entry.baseUrlEnv && io.env[entry.baseUrlEnv]?.trim()) || entry.url!;
    return (await answers(url))
      ? `a server answers at ${url} but it is not configured: add providers: { ${entry.name}: { kind: { type: catalog, name: ${entry.name} }, auth: { type: no_auth } } }`
      : `not reachable: no server answers at ${url}`;
  }
  const keyVar = entry.env.map((n) => set(io.env, n)).find(Boolean);
  if (keyVar && fromFile) return `${keyVar} is set, but a config file names other providers: add this one there`;
  if (keyVar && !entry.autoDetect) return `${keyVar} is set but does not choose a provider on its own (other tools use it): configure this provider`;
  if (keyVar && entry.url === null) return `${keyVar} is set; it also needs ${entry.baseUrlEnv} (your resource's address)`;
  return `no key: set ${entry.env[0]}${entry.keyUrl ? ` (get one at ${entry.keyUrl})` : ""}`;
}

export async function modelsRun(args: ParsedArgs, io: Io): Promise<number> {
  const json = args.flags.json === true;
  const only = args.flags.provider as string | undefined;
  const chosen = only ? catalogProvider(only) : undefined;
  if (only && !chosen) throw new UsageError(`unknown provider '${only}'${didYouMean(only, catalogNames(), "'")}; 'agent models' lists them`);
  const loaded = loadConfig({ cwd: io.cwd, env: io.env });
  const catalog = modelCatalog(dataRoot(io.env));
  const providers = loaded.config.providers ?? {};
  const fromFile = !loaded.fromEnvironment && Object.keys(providers).length > 0;
  const defaultsOf = (key: string) => (["full", "mini", "nano"] as const).filter((t) => loaded.defaults[t]?.model === key);

  const rows: ProviderRow[] = [];
  for (const entry of chosen ? [chosen] : CATALOG_PROVIDERS) {
    const keys = Object.entries(providers).filter(([, p]) => p.kind.type === "catalog" && catalogProvider(p.kind.name) === entry).map(([k]) => k);
    if (entry.protocol === "test" && keys.length === 0 && !chosen) continue;
    const byId = new Map(catalog.models(entry).map((m) => [m.provider_name, m]));
    let reason: string;
    const models: ModelRow[] = [];
    if (keys.length > 0) {
      const env = loaded.fromEnvironment?.found.find((f) => f.name === entry.name);
      reason = env ? `key from ${env.keyVar}${env.urlVar ? `, address from ${env.urlVar}` : ""}` : `configured as ${keys.map((k) => `'${k}'`).join(", ")}`;
      for (const m of loaded.models.models.values()) if (keys.includes(m.provider)) models.push(row(m.key, m, byId.get(m.provider_name), defaultsOf(m.key)));
      if (models.length === 0 && !entry.modelsDev) reason += "; models are listed by the server (its /v1/models)";
    } else {
      reason = await unusableReason(entry, io, fromFile);
      if (chosen) for (const m of byId.values()) models.push(row(`${entry.name}/${m.provider_name}`, { ...m, max_tokens: m.max_tokens ?? null, supports_vision: m.supports_vision ?? false, reasoning: m.reasoning ?? { type: "no_reasoning" } }, m, []));
    }
    rows.push({ name: entry.name, title: entry.title, protocol: entry.protocol, url: entry.url, env: entry.env, usable: keys.length > 0, reason, configured_as: keys, models });
  }
  // Custom providers of the config, with the models configured for them.
  if (!chosen) {
    for (const [key, p] of Object.entries(providers)) {
      if (p.kind.type === "catalog") continue;
      const models = [...loaded.models.models.values()].filter((m) => m.provider === key).map((m) => row(m.key, m, undefined, defaultsOf(m.key)));
      rows.push({ name: key, title: `custom (${p.kind.type})`, protocol: p.protocol ?? "", url: p.url ?? null, env: [], usable: true, reason: `configured as '${key}'`, configured_as: [key], models });
    }
  }
  const snapshot = { date: catalog.date, origin: catalog.origin, source: catalog.source, revision: catalog.revision, path: catalog.origin === "cache" ? catalog.path : null };
  if (json) {
    io.out(`${JSON.stringify({ snapshot, providers: rows })}\n`);
    return EXIT.ok;
  }
  const origin = catalog.origin === "cache" ? `fetched by 'agent models refresh' (${catalog.path})` : "built in; 'agent models refresh' fetches a newer copy";
  io.out(`Model data of ${catalog.date} from ${catalog.source}, ${origin}.\n`);
  if (!loaded.ok) io.out("The config has errors ('agent config validate' lists them); what it could not load is missing below.\n");
  let lastHadModels = true;
  for (const r of rows) {
    // Providers with a model list stand apart; the one-line "not usable" ones stay together.
    const gap = lastHadModels || r.models.length > 0 ? "\n" : "";
    lastHadModels = r.models.length > 0;
    io.out(`${gap}${r.usable ? "✓" : "✗"} ${r.name} — ${r.title}: ${r.usable ? "ready" : "not usable"} (${r.reason})\n`);
    for (const m of r.models) io.out(`  ${modelLine(m)}\n`);
  }
  return EXIT.ok;
}

const k = (n: number | null) => (n === null ? "?" : n >= 1_000_000 ? `${+(n / 1_000_000).toFixed(2)}M` : n >= 1000 ? `${Math.round(n / 1000)}k` : String(n));

function modelLine(m: ModelRow): string {
  const tags = [m.class, ...m.default_for.map((t) => `default ${t}`), ...(m.vision ? ["vision"] : [])].join(", ");
  const price = m.cost ? ` · $${m.cost.input}/$${m.cost.output} per M in/out` : "";
  return `${m.key}  [${tags}]  context ${k(m.context_window)}, output ${k(m.max_output_tokens)}, reasoning ${m.reasoning}${price}`;
}

export async function modelsRefreshRun(args: ParsedArgs, io: Io): Promise<number> {
  const json = args.flags.json === true;
  const url = (args.flags.url as string | undefined) ?? MODELS_DEV_API_URL;
  if (!/^https?:\/\//.test(url)) throw new UsageError(`--url must be an http(s) URL, not '${url}'`);
  if (!json) io.err(`fetching ${url} …\n`);
  let data: unknown;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(60_000), headers: { accept: "application/json" } });
    if (!response.ok) throw new CliError(`models refresh: ${url} answered HTTP ${response.status}; the model data was not changed`);
    data = await response.json();
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`models refresh: could not fetch ${url} (${(error as Error).message}); the model data was not changed`);
  }
  if (!isModelsDevApi(data)) throw new CliError(`models refresh: ${url} did not return models.dev's api.json (a map of providers with models); the model data was not changed`);
  const ids = [...new Set(CATALOG_PROVIDERS.map((p) => p.modelsDev).filter((id): id is string => id !== null))];
  const snapshot = compactCatalog(data, ids, new Date().toISOString().slice(0, 10), null);
  const count = Object.values(snapshot.providers).reduce((n, list) => n + list.length, 0);
  if (count === 0) throw new CliError(`models refresh: ${url} has none of the catalog's providers; the model data was not changed`);
  const dir = modelsCacheDir(dataRoot(io.env));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileAtomic(join(dir, "api.json"), JSON.stringify(data));
  writeFileAtomic(join(dir, CACHED_SNAPSHOT), `${JSON.stringify(snapshot)}\n`);
  const path = join(dir, CACHED_SNAPSHOT);
  if (json) io.out(`${JSON.stringify({ date: snapshot.date, url, path, models: count, providers: ids.length })}\n`);
  else io.out(`Model data of ${snapshot.date} saved: ${count} models of ${ids.length} providers (${path}).\n`);
  return EXIT.ok;
}
