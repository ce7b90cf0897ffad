// "A key is all it takes": with no provider in any config file, the standard key variables of the
// catalog (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, ...) configure their providers, in the
// catalog's documented order; the first one found supplies the default models. The base-URL variables
// the official SDKs honour (ANTHROPIC_BASE_URL, OPENAI_BASE_URL) move the address, as they do there.
import { type CatalogProvider, CATALOG_PROVIDERS } from "./catalog.ts";
import { catalogModelKey } from "./model-catalog.ts";

type Env = Record<string, string | undefined>;

export interface EnvProvider {
  /** Catalog name, also the provider key. */
  name: string;
  title: string;
  /** The variable the key came from. */
  keyVar: string;
  /** The variable the base URL came from, when one was set. */
  urlVar: string | null;
  url: string | null;
}

export interface EnvSelection {
  /** Providers configured from the environment, in detection order; the first gives the defaults. */
  found: EnvProvider[];
  /** Providers whose key is set but that cannot be used without more (an Azure resource URL). */
  incomplete: { name: string; keyVar: string; missing: string }[];
  providers: Record<string, { kind: { type: "catalog"; name: string }; auth: { type: "static_key"; key: string }; url?: string }>;
  defaults: { full: string; mini?: string; nano?: string } | null;
  /** The key values, for redaction. */
  secrets: string[];
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

export function providersFromEnv(env: Env): EnvSelection | null {
  const selection: EnvSelection = { found: [], incomplete: [], providers: {}, defaults: null, secrets: [] };
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
    if (!selection.defaults && entry.defaults) {
      const d = entry.defaults;
      selection.defaults = {
        full: catalogModelKey(entry, entry.name, d.full),
        ...(d.mini ? { mini: catalogModelKey(entry, entry.name, d.mini) } : {}),
        ...(d.nano ? { nano: catalogModelKey(entry, entry.name, d.nano) } : {}),
      };
    }
  }
  return selection.found.length > 0 || selection.incomplete.length > 0 ? selection : null;
}

/** The one line `agent` prints when the environment chose the provider: what, from where, how to change it. */
export function envChoiceLine(selection: EnvSelection, model: string): string {
  const first = selection.found[0];
  if (!first) return "";
  const at = first.urlVar ? ` at ${first.url} (${first.urlVar})` : "";
  const others = selection.found.slice(1).map((p) => `${p.name} (${p.keyVar})`);
  const also = others.length ? `; also usable: ${others.join(", ")}` : "";
  return `using ${model} (${first.title}, key from ${first.keyVar}${at}, no config file)${also} · change it: --model PROVIDER/MODEL, or providers/defaults in ~/.config/agent/config.yaml; \`agent models\` lists them`;
}
