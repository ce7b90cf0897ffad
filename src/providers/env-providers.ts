// "A key is all it takes": with no provider in any config file, the standard key variables of the
// catalog (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, ...) configure their providers, in the
// catalog's documented order; the first one found supplies the default models. The base-URL variables
// the official SDKs honour (ANTHROPIC_BASE_URL, OPENAI_BASE_URL) move the address, as they do there.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { dataRoot, globalConfigDir } from "../config/files.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { type CatalogProvider, CATALOG_PROVIDERS } from "./catalog.ts";
import { type DetectedLocalServer, detectedFromEnv, LOCAL_DEFAULT_CONTEXT_WINDOW } from "./local-detect.ts";
import { catalogModelKey } from "./model-catalog.ts";

type Env = Record<string, string | undefined>;

export interface EnvProvider {
  /** Catalog name, also the provider key. */
  name: string;
  title: string;
  /** The variable the key came from; null for a local server found running. */
  keyVar: string | null;
  /** The variable the base URL came from, when one was set. */
  urlVar: string | null;
  url: string | null;
}

export interface EnvSelection {
  /** Providers configured from the environment, in detection order; the first gives the defaults. */
  found: EnvProvider[];
  /** Providers whose key is set but that cannot be used without more (an Azure resource URL). */
  incomplete: { name: string; keyVar: string; missing: string }[];
  providers: Record<string, { kind: { type: "catalog"; name: string }; auth: { type: "static_key"; key: string } | { type: "no_auth" }; url?: string }>;
  /** Models of a local server found running (its own list; the catalog has none for it). */
  models: Record<string, { provider: string; provider_name: string; class: "full"; context_window: number }>;
  defaults: { full: string; mini?: string; nano?: string } | null;
  /** The key values, for redaction. */
  secrets: string[];
  /** Set when several keys are found and the first was picked by a remembered first-run choice. */
  chosen: boolean;
  /** The global config file a person would write to change this (XDG_CONFIG_HOME moves it). */
  configFile: string;
}

/** Where the first-run choice among several keys is remembered (data root, not config: no file turns env detection off). */
export function providerChoiceFile(env: Env): string {
  return join(dataRoot(env), "provider-choice.json");
}

export function readProviderChoice(env: Env): string | null {
  try {
    const v = JSON.parse(readFileSync(providerChoiceFile(env), "utf8"));
    return typeof v?.provider === "string" ? v.provider : null;
  } catch {
    return null;
  }
}

export function saveProviderChoice(env: Env, provider: string): string {
  const path = providerChoiceFile(env);
  writeFileAtomic(path, `${JSON.stringify({ provider, chosen_at: new Date().toISOString() })}\n`, 0o600);
  return path;
}

const value = (env: Env, name: string): string | undefined => {
  const v = env[name]?.trim();
  return v ? v : undefined;
};

/** Azure resources: the endpoint variables name the resource; the request base adds the API path. */
function resourceUrl(entry: CatalogProvider, env: Env): { url: string; urlVar: string } | null {
  const base = entry.baseUrlEnv ? value(env, entry.baseUrlEnv) : undefined;
  if (entry.name === "azure") {
    if (!base) return null;
    const trimmed = base.replace(/\/+$/, "");
    return { url: /\/openai\/v1$/.test(trimmed) ? trimmed : `${trimmed}/openai/v1`, urlVar: entry.baseUrlEnv! };
  }
  if (entry.name === "azure-anthropic") {
    if (base) return { url: base.replace(/\/+$/, ""), urlVar: entry.baseUrlEnv! };
    const resource = value(env, "ANTHROPIC_FOUNDRY_RESOURCE");
    return resource ? { url: `https://${resource}.services.ai.azure.com/anthropic`, urlVar: "ANTHROPIC_FOUNDRY_RESOURCE" } : null;
  }
  return null;
}

const defaultsOf = (entry: CatalogProvider) => {
  const d = entry.defaults!;
  return {
    full: catalogModelKey(entry, entry.name, d.full),
    ...(d.mini ? { mini: catalogModelKey(entry, entry.name, d.mini) } : {}),
    ...(d.nano ? { nano: catalogModelKey(entry, entry.name, d.nano) } : {}),
  };
};

/** A local server the starting command found running (DETECTED_LOCAL_VAR): its provider and its first model. */
function fromLocal(selection: EnvSelection, local: DetectedLocalServer): EnvSelection {
  selection.found.push({ name: local.name, title: local.title, keyVar: null, urlVar: null, url: local.url });
  selection.providers[local.name] = { kind: { type: "catalog", name: local.name }, auth: { type: "no_auth" }, url: local.url };
  for (const m of local.models) {
    selection.models[`${local.name}/${m.id}`] = { provider: local.name, provider_name: m.id, class: "full", context_window: m.context_window ?? LOCAL_DEFAULT_CONTEXT_WINDOW };
  }
  selection.defaults = { full: `${local.name}/${local.models[0]!.id}` };
  return selection;
}

export function providersFromEnv(env: Env): EnvSelection | null {
  const selection: EnvSelection = { found: [], incomplete: [], providers: {}, models: {}, defaults: null, secrets: [], chosen: false, configFile: join(globalConfigDir(env), "config.yaml") };
  for (const entry of CATALOG_PROVIDERS) {
    if (!entry.autoDetect || entry.auth !== "key") continue;
    const keyVar = entry.env.find((name) => value(env, name) !== undefined);
    if (!keyVar) continue;
    let url: string | null = null;
    let urlVar: string | null = null;
    if (entry.url === null) {
      const resource = resourceUrl(entry, env);
      if (!resource) {
        selection.incomplete.push({ name: entry.name, keyVar, missing: entry.name === "azure" ? "AZURE_OPENAI_ENDPOINT" : "ANTHROPIC_FOUNDRY_RESOURCE" });
        continue;
      }
      ({ url, urlVar } = resource);
    } else if (entry.baseUrlEnv && value(env, entry.baseUrlEnv)) {
      url = value(env, entry.baseUrlEnv)!.replace(/\/+$/, "");
      urlVar = entry.baseUrlEnv;
    }
    const key = value(env, keyVar)!;
    selection.found.push({ name: entry.name, title: entry.title, keyVar, urlVar, url });
    selection.providers[entry.name] = { kind: { type: "catalog", name: entry.name }, auth: { type: "static_key", key }, ...(url ? { url } : {}) };
    selection.secrets.push(key);
  }
  if (selection.found.length === 0) {
    const local = detectedFromEnv(env);
    return local ? fromLocal(selection, local) : selection.incomplete.length > 0 ? selection : null;
  }
  // Several keys: the one chosen on the first run (agent asks on a terminal) goes first.
  if (selection.found.length > 1) {
    const choice = readProviderChoice(env);
    const at = selection.found.findIndex((f) => f.name === choice);
    if (at > 0) selection.found.unshift(...selection.found.splice(at, 1));
    selection.chosen = at >= 0;
  }
  const first = CATALOG_PROVIDERS.find((e) => e.name === selection.found[0]!.name)!;
  const withDefaults = first.defaults ? first : selection.found.map((f) => CATALOG_PROVIDERS.find((e) => e.name === f.name)!).find((e) => e.defaults);
  if (withDefaults) selection.defaults = defaultsOf(withDefaults);
  return selection;
}

/** The one line `agent` prints when the environment chose the provider: what, from where, how to change it. */
export function envChoiceLine(selection: EnvSelection, model: string): string {
  const first = selection.found[0];
  if (!first) return "";
  const change = `change it: --model PROVIDER/MODEL, \`agent setup\`, or providers/defaults in ${selection.configFile}; \`agent models\` lists them`;
  if (first.keyVar === null) return `using ${model} (${first.title} found running at ${first.url}, no key or config file) · ${change}`;
  const at = first.urlVar ? ` at ${first.url} (${first.urlVar})` : "";
  const others = selection.found.slice(1).map((p) => `${p.name} (${p.keyVar})`);
  const also = others.length ? `; also usable: ${others.join(", ")}` : "";
  return `using ${model} (${first.title}, key from ${first.keyVar}${at}${selection.chosen ? ", your first-run choice" : ""}, no config file)${also} · ${change}`;
}
