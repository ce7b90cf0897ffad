// `web_search`: one query to one enabled hosted search provider of `integrations.search`, chosen by
// `strategy` (round_robin in config order, or random). API keys go in request headers only and are
// scrubbed from anything the model or a log could see.
import type { Static } from "@sinclair/typebox";
import { Type } from "@sinclair/typebox";
import type { IntegrationsConfig } from "../config/schema/session.ts";
import { SEARCH_PROVIDERS } from "../config/schema/session.ts";
import { redactText } from "../util/redact.ts";
import { defineTool, toolError, type Tool } from "./tool.ts";
import { describeNetworkError, readCapped, webRequestInit, type WebHttpOptions } from "./web-http.ts";
import { SEARCH_PROVIDER_SPECS, type SearchHit, type SearchProviderName } from "./web-search-providers.ts";
import description from "./web-search.txt" with { type: "text" };

export const WEB_SEARCH_DEFAULT_RESULTS = 5;
export const WEB_SEARCH_MAX_RESULTS = 10;
export const WEB_SEARCH_TIMEOUT_MS = 20_000;
const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;
const MAX_SNIPPET_CHARS = 400;

export const WebSearchInput = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 400, description: "What to search the web for." }),
    max_results: Type.Optional(
      Type.Integer({ minimum: 1, maximum: WEB_SEARCH_MAX_RESULTS, description: `How many results (default ${WEB_SEARCH_DEFAULT_RESULTS}, at most ${WEB_SEARCH_MAX_RESULTS}).` }),
    ),
  },
  { additionalProperties: false },
);

export type SearchSettings = NonNullable<Static<typeof IntegrationsConfig>["search"]>;

export interface WebSearchToolOptions extends WebHttpOptions {
  /** `integrations.search`. */
  search?: SearchSettings | null;
  /** For `strategy: random`: a number in [0, 1). */
  random?: () => number;
  /** Provider base URLs to use instead of the real services (tests point these at local fakes). */
  baseUrls?: Partial<Record<SearchProviderName, string>>;
}

interface Enabled {
  name: SearchProviderName;
  key: string;
}

/** Whether web_search can work: at least one search provider is enabled with a key (else it is not offered). */
export function hasSearchProvider(search: SearchSettings | null | undefined): boolean {
  return enabledProviders(search).length > 0;
}

function enabledProviders(search: SearchSettings | null | undefined): Enabled[] {
  const out: Enabled[] = [];
  for (const name of SEARCH_PROVIDERS) {
    const provider = search?.providers?.[name] as { enabled?: boolean; key?: string } | undefined;
    if (provider?.enabled && provider.key) out.push({ name, key: provider.key });
  }
  return out;
}

const NONE_ENABLED =
  "web_search has no enabled search provider. The user can enable one in the config under " +
  "integrations.search.providers (search_a, search_b, search_c or search_d) with `enabled: true` and an API key. " +
  "Until then, answer from what you know or use web_fetch on a URL you are sure of.";

function render(query: string, provider: SearchProviderName, hits: SearchHit[]): string {
  if (hits.length === 0) return `No results for "${query}" (via ${provider}). Try other words.`;
  const lines = [`Results for "${query}" (via ${provider}):`];
  hits.forEach((h, i) => {
    lines.push("", `${i + 1}. ${h.title.trim() || "(no title)"}${h.date ? ` (${h.date})` : ""}`, `   ${h.url}`);
    const snippet = h.snippet.replace(/<\/?strong>|<\/?b>/g, "").replace(/\s+/g, " ").trim();
    if (snippet) lines.push(`   ${snippet.length > MAX_SNIPPET_CHARS ? `${snippet.slice(0, MAX_SNIPPET_CHARS)}…` : snippet}`);
  });
  return lines.join("\n");
}

export function createWebSearchTool(options: WebSearchToolOptions): Tool<typeof WebSearchInput> {
  const enabled = enabledProviders(options.search);
  const strategy = options.search?.strategy ?? "round_robin";
  const random = options.random ?? Math.random;
  let turn = 0;
  const pick = (): Enabled => {
    if (strategy === "random") return enabled[Math.min(enabled.length - 1, Math.floor(random() * enabled.length))]!;
    return enabled[turn++ % enabled.length]!;
  };
  return defineTool({
    name: "web_search",
    description,
    inputSchema: WebSearchInput,
    async run(input, _ctx, signal) {
      if (enabled.length === 0) return toolError(NONE_ENABLED);
      const { name, key } = pick();
      const spec = SEARCH_PROVIDER_SPECS[name];
      const scrub = (text: string) => redactText(text, [key]);
      const count = input.max_results ?? WEB_SEARCH_DEFAULT_RESULTS;
      const request = spec.request(input.query, count, key, options.baseUrls?.[name] ?? spec.defaultBaseUrl);
      const url = new URL(request.url);
      const timeout = AbortSignal.timeout(WEB_SEARCH_TIMEOUT_MS);
      let response: Response;
      try {
        response = await fetch(url.href, webRequestInit(url, options, { ...request.init, signal: AbortSignal.any([signal, timeout]) }));
      } catch (error) {
        signal.throwIfAborted();
        const why = timeout.aborted ? `no response within ${WEB_SEARCH_TIMEOUT_MS / 1000} s` : describeNetworkError(error, url, options);
        return toolError(scrub(`web_search via ${name} (${spec.service}) failed: ${why}`));
      }
      const { bytes } = await readCapped(response, MAX_RESPONSE_BYTES);
      const text = new TextDecoder().decode(bytes);
      if (!response.ok) {
        const hint =
          response.status === 401 || response.status === 403
            ? "The provider rejected the API key; the user should check integrations.search.providers." + name + ".key."
            : response.status === 429
              ? "The provider's rate limit or quota is exhausted; try again later."
              : "The provider failed; try again later.";
        return toolError(scrub(`web_search via ${name} (${spec.service}) got HTTP ${response.status}. ${hint}\n${text.slice(0, 300)}`), { provider: name, status: response.status });
      }
      let hits: SearchHit[];
      try {
        hits = spec.parse(JSON.parse(text)).filter((h) => h.url !== "").slice(0, count);
      } catch (error) {
        return toolError(scrub(`web_search via ${name} (${spec.service}) returned a response that could not be read: ${(error as Error).message}.`));
      }
      return { output: scrub(render(input.query, name, hits)), metadata: { provider: name, results: hits.length } };
    },
  });
}
