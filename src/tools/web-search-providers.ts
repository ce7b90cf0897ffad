// The four hosted search providers of `integrations.search` and their documented HTTP APIs: how a query
// becomes a request and how a response becomes hits. The neutral names map to real services as recorded
// in docs/decisions-tools.md.
import type { SEARCH_PROVIDERS } from "../config/schema/session.ts";

export type SearchProviderName = (typeof SEARCH_PROVIDERS)[number];

export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
  /** Publication date or age as the provider gives it. */
  date?: string;
}

export interface SearchRequest {
  url: string;
  init: { method: "GET" | "POST"; headers: Record<string, string>; body?: string };
}

export interface SearchProviderSpec {
  name: SearchProviderName;
  /** The service it stands for, for the docs and error messages. */
  service: string;
  defaultBaseUrl: string;
  request(query: string, count: number, key: string, baseUrl: string): SearchRequest;
  /** Hits from the parsed JSON body; throws when the body is not the documented shape. */
  parse(body: unknown): SearchHit[];
}

const JSON_HEADERS = { accept: "application/json", "content-type": "application/json" };

/** The hit objects at `path`; a missing list means no hits, anything else that is not a list is a broken response. */
function list(body: unknown, ...path: string[]): Record<string, unknown>[] {
  if (!body || typeof body !== "object") throw new Error("the response is not a JSON object");
  let value: unknown = body;
  for (const key of path) value = value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Error(`the response's \`${path.join(".")}\` is not a list`);
  return value.filter((v): v is Record<string, unknown> => !!v && typeof v === "object");
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const opt = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const hit = (title: unknown, url: unknown, snippet: unknown, date?: unknown): SearchHit => {
  const h: SearchHit = { title: str(title), url: str(url), snippet: str(snippet) };
  const d = opt(date);
  if (d) h.date = d;
  return h;
};
const endpoint = (base: string, path: string) => `${base.replace(/\/+$/, "")}${path}`;

export const SEARCH_PROVIDER_SPECS: Record<SearchProviderName, SearchProviderSpec> = {
  // Brave Search API: GET /res/v1/web/search?q=&count=, key in X-Subscription-Token; hits in web.results.
  search_a: {
    name: "search_a",
    service: "Brave Search API",
    defaultBaseUrl: "https://api.search.brave.com",
    request(query, count, key, base) {
      const params = new URLSearchParams({ q: query, count: String(count) });
      return { url: `${endpoint(base, "/res/v1/web/search")}?${params}`, init: { method: "GET", headers: { accept: "application/json", "x-subscription-token": key } } };
    },
    parse: (body) => list(body, "web", "results").map((r) => hit(r.title, r.url, r.description, r.age ?? r.page_age)),
  },
  // Tavily: POST /search {query, max_results}, bearer key; hits in results with `content` snippets.
  search_b: {
    name: "search_b",
    service: "Tavily Search API",
    defaultBaseUrl: "https://api.tavily.com",
    request(query, count, key, base) {
      return {
        url: endpoint(base, "/search"),
        init: { method: "POST", headers: { ...JSON_HEADERS, authorization: `Bearer ${key}` }, body: JSON.stringify({ query, max_results: count, search_depth: "basic" }) },
      };
    },
    parse: (body) => list(body, "results").map((r) => hit(r.title, r.url, r.content, r.published_date)),
  },
  // Exa: POST /search {query, numResults, contents.highlights}, key in x-api-key; hits in results.
  search_c: {
    name: "search_c",
    service: "Exa Search API",
    defaultBaseUrl: "https://api.exa.ai",
    request(query, count, key, base) {
      return {
        url: endpoint(base, "/search"),
        init: { method: "POST", headers: { ...JSON_HEADERS, "x-api-key": key }, body: JSON.stringify({ query, numResults: count, type: "auto", contents: { highlights: true } }) },
      };
    },
    parse: (body) =>
      list(body, "results").map((r) => {
        const highlights = Array.isArray(r.highlights) ? r.highlights.filter((h) => typeof h === "string").join(" … ") : "";
        return hit(r.title, r.url, highlights || r.text || r.summary, r.publishedDate);
      }),
  },
  // Serper (Google results): POST /search {q, num}, key in X-API-KEY; hits in organic with `link`.
  search_d: {
    name: "search_d",
    service: "Serper Google Search API",
    defaultBaseUrl: "https://google.serper.dev",
    request(query, count, key, base) {
      return { url: endpoint(base, "/search"), init: { method: "POST", headers: { ...JSON_HEADERS, "x-api-key": key }, body: JSON.stringify({ q: query, num: count }) } };
    },
    parse: (body) => list(body, "organic").map((r) => hit(r.title, r.link, r.snippet, r.date)),
  },
};
