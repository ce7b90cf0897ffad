// Turns `providers.<name>` settings into everything a call needs: protocol, dialect, URLs, auth
// format, cache strategy, static headers. Config errors name the provider and the field.
import { type AuthFormat, type BaseDialect, type ProtocolInfo, type ProviderProtocol, PROTOCOL_INFO } from "./protocols.ts";
import type { CatalogProviderDefaults, ProviderSettings } from "./settings.ts";
import type { CacheControlStrategy } from "./request.ts";
import { ProviderUrlError, isCloudHostedResponsesBase, providerEndpoint } from "./urls.ts";
import { validateHeaderNames } from "./auth-headers.ts";

export class ProviderConfigError extends Error {
  constructor(provider: string, message: string) {
    super(`provider '${provider}': ${message}`);
    this.name = "ProviderConfigError";
  }
}

export interface ResolvedProvider {
  name: string;
  protocol: ProviderProtocol;
  info: ProtocolInfo;
  dialect: BaseDialect;
  /** The base URL (for `test`: the script file path). */
  base: string;
  /** Streaming endpoint (null for `test`: its server is started at call time, call.ts). */
  streamUrl: string | null;
  /** Models listing endpoint (null for `test`). */
  modelsUrl: string | null;
  authFormat: AuthFormat;
  /** `cache_control_strategy` as configured; null: the model family decides (families/). */
  cacheStrategy: CacheControlStrategy | null;
  /** Protocol default headers merged with configured headers (per-request headers are added later). */
  headers: Record<string, string>;
  settings: ProviderSettings;
}

/** Default protocol per kind (spec: custom chat-style -> chat completions; Responses-style -> Responses). */
export function defaultProtocolForKind(settings: ProviderSettings, catalog: CatalogProviderDefaults | null): ProviderProtocol | null {
  switch (settings.kind.type) {
    case "catalog":
      return catalog?.protocol ?? null;
    case "custom_a_compatible":
      return "a_messages";
    case "custom_b_compatible":
      return "b_chat_completions";
    case "custom_b_responses":
      return "b_responses";
  }
}

const KIND_DIALECTS: Record<ProviderSettings["kind"]["type"], readonly BaseDialect[] | null> = {
  catalog: null,
  custom_a_compatible: ["a_messages"],
  custom_b_compatible: ["b_chat_completions", "b_responses"],
  custom_b_responses: ["b_responses"],
};

export function resolveProvider(name: string, settings: ProviderSettings, catalog: CatalogProviderDefaults | null = null): ResolvedProvider {
  if (settings.kind.type === "catalog" && !catalog)
    throw new ProviderConfigError(name, `kind.name '${settings.kind.name}' is not a provider of the built-in catalog`);
  const protocol = settings.protocol ?? defaultProtocolForKind(settings, catalog);
  if (!protocol) throw new ProviderConfigError(name, "protocol could not be determined");
  const info = PROTOCOL_INFO[protocol];
  const allowed = KIND_DIALECTS[settings.kind.type];
  // The offline demo fits every kind.
  if (allowed && protocol !== "test" && !allowed.includes(info.baseDialect))
    throw new ProviderConfigError(name, `protocol '${protocol}' does not fit kind '${settings.kind.type}' (allowed dialects: ${[...allowed, "test"].join(", ")})`);
  const custom = settings.kind.type !== "catalog";
  const base = settings.url ?? (custom ? null : catalog?.url ?? info.defaultUrl);
  if (!base)
    throw new ProviderConfigError(name, custom ? `url is required for kind '${settings.kind.type}'` : `url is required: protocol '${protocol}' has no default URL`);
  if (settings.headers) {
    try {
      validateHeaderNames(settings.headers);
    } catch (error) {
      throw new ProviderConfigError(name, `headers: ${(error as Error).message}`);
    }
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(info.defaultHeaders)) headers[k.toLowerCase()] = v;
  for (const [k, v] of Object.entries(settings.headers ?? {})) headers[k.toLowerCase()] = v;

  let streamUrl: string | null = null;
  let modelsUrl: string | null = null;
  if (info.urlStyle !== "none") {
    try {
      streamUrl = providerEndpoint(base, info.baseDialect, "stream", info.urlStyle);
      modelsUrl = providerEndpoint(base, info.baseDialect, "models", info.urlStyle);
    } catch (error) {
      if (error instanceof ProviderUrlError) throw new ProviderConfigError(name, `url: ${error.message}`);
      throw error;
    }
  }
  const cloudResponses = info.baseDialect === "b_responses" && isCloudHostedResponsesBase(base);
  const authFormat: AuthFormat = cloudResponses ? "c_api_key" : (info.defaultAuthFormat ?? "bearer_token");
  // Caching follows the model family, not the address: Claude behind a gateway or on Foundry caches too.
  const cacheStrategy = settings.cache_control_strategy ?? null;
  return { name, protocol, info, dialect: info.baseDialect, base, streamUrl, modelsUrl, authFormat, cacheStrategy, headers, settings };
}
