// web_search against local fakes of the four providers' documented HTTP APIs. Each fake checks the
// request the way the real service would (method, path, where the key goes, parameter names) and
// answers with the documented response shape.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createWebSearchTool, type WebSearchToolOptions } from "../../src/tools/web-search.ts";
import type { SearchProviderName } from "../../src/tools/web-search-providers.ts";
import { call, makeContext, makeProject } from "./helpers.ts";

const KEYS: Record<SearchProviderName, string> = {
  search_a: "brave-key-0123456789",
  search_b: "tvly-key-0123456789",
  search_c: "exa-key-0123456789",
  search_d: "serper-key-0123456789",
};

interface Seen {
  provider: string;
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
}

let server: ReturnType<typeof Bun.serve>;
const seen: Seen[] = [];
let mode: "ok" | "echo-key-401" | "broken" = "ok";
const ctx = makeContext(makeProject());

const unauthorized = (got: string | null) => Response.json({ error: `invalid key ${got}` }, { status: 401 });

async function fake(req: Request): Promise<Response> {
  const url = new URL(req.url);
  const [, provider, ...rest] = url.pathname.split("/");
  const path = `/${rest.join("/")}`;
  const body = req.method === "POST" ? await req.json() : undefined;
  seen.push({ provider: provider!, method: req.method, path, query: Object.fromEntries(url.searchParams), body });
  if (mode === "broken") return Response.json({ web: { results: "nope" }, results: 42, organic: {} });
  switch (provider) {
    case "a": {
      const got = req.headers.get("x-subscription-token");
      if (req.method !== "GET" || path !== "/res/v1/web/search" || got !== KEYS.search_a || mode === "echo-key-401") return unauthorized(got);
      return Response.json({
        type: "search",
        query: { original: url.searchParams.get("q") },
        web: { type: "search", results: [{ title: "Bun docs", url: "https://bun.test/docs", description: "The <strong>Bun</strong> runtime", age: "2 days ago" }] },
      });
    }
    case "b": {
      const got = req.headers.get("authorization");
      if (req.method !== "POST" || path !== "/search" || got !== `Bearer ${KEYS.search_b}`) return unauthorized(got);
      return Response.json({ query: (body as { query: string }).query, answer: null, results: [{ title: "Tavily hit", url: "https://b.test/1", content: "content snippet", score: 0.9 }], response_time: 1.2 });
    }
    case "c": {
      const got = req.headers.get("x-api-key");
      if (req.method !== "POST" || path !== "/search" || got !== KEYS.search_c) return unauthorized(got);
      return Response.json({
        requestId: "r1",
        results: [{ id: "https://c.test/x", title: "Exa hit", url: "https://c.test/x", publishedDate: "2025-01-02T00:00:00.000Z", author: null, highlights: ["first highlight", "second"] }],
      });
    }
    case "d": {
      const got = req.headers.get("x-api-key");
      if (req.method !== "POST" || path !== "/search" || got !== KEYS.search_d) return unauthorized(got);
      return Response.json({ searchParameters: { q: (body as { q: string }).q }, organic: [{ title: "Serper hit", link: "https://d.test/y", snippet: "organic snippet", position: 1 }] });
    }
  }
  return new Response("no such fake", { status: 404 });
}

beforeAll(() => {
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: fake, error: () => new Response("error", { status: 500 }) });
});
afterAll(() => server.stop(true));

const baseUrls = () => ({
  search_a: `http://127.0.0.1:${server.port}/a`,
  search_b: `http://127.0.0.1:${server.port}/b`,
  search_c: `http://127.0.0.1:${server.port}/c`,
  search_d: `http://127.0.0.1:${server.port}/d`,
});

function tool(enabled: SearchProviderName[], extra: Partial<WebSearchToolOptions> = {}) {
  const providers = Object.fromEntries(Object.entries(KEYS).map(([name, key]) => [name, { enabled: enabled.includes(name as SearchProviderName), key }]));
  return createWebSearchTool({ search: { strategy: "round_robin", providers }, baseUrls: baseUrls(), ...extra });
}

describe("web_search", () => {
  test("search_a (Brave): GET /res/v1/web/search with q, count and X-Subscription-Token", async () => {
    seen.length = 0;
    const r = await call(tool(["search_a"]), { query: "bun runtime", max_results: 3 }, ctx);
    expect(seen[0]).toMatchObject({ provider: "a", method: "GET", path: "/res/v1/web/search", query: { q: "bun runtime", count: "3" } });
    expect(r.output).toBe('Results for "bun runtime" (via search_a):\n\n1. Bun docs (2 days ago)\n   https://bun.test/docs\n   The Bun runtime');
  });

  test("search_b (Tavily): POST /search with a bearer key and max_results", async () => {
    seen.length = 0;
    const r = await call(tool(["search_b"]), { query: "q b" }, ctx);
    expect(seen[0]).toMatchObject({ provider: "b", method: "POST", path: "/search", body: { query: "q b", max_results: 5 } });
    expect(r.output).toBe('Results for "q b" (via search_b):\n\n1. Tavily hit\n   https://b.test/1\n   content snippet');
  });

  test("search_c (Exa): POST /search with x-api-key, numResults and highlights", async () => {
    seen.length = 0;
    const r = await call(tool(["search_c"]), { query: "q c", max_results: 2 }, ctx);
    expect(seen[0]).toMatchObject({ provider: "c", method: "POST", path: "/search", body: { query: "q c", numResults: 2, contents: { highlights: true } } });
    expect(r.output).toBe('Results for "q c" (via search_c):\n\n1. Exa hit (2025-01-02T00:00:00.000Z)\n   https://c.test/x\n   first highlight … second');
  });

  test("search_d (Serper): POST /search with X-API-KEY, q and num", async () => {
    seen.length = 0;
    const r = await call(tool(["search_d"]), { query: "q d" }, ctx);
    expect(seen[0]).toMatchObject({ provider: "d", method: "POST", path: "/search", body: { q: "q d", num: 5 } });
    expect(r.output).toBe('Results for "q d" (via search_d):\n\n1. Serper hit\n   https://d.test/y\n   organic snippet');
  });

  test("round_robin rotates through the enabled providers in config order; disabled ones are skipped", async () => {
    seen.length = 0;
    const t = tool(["search_a", "search_c", "search_d"]);
    for (let i = 0; i < 4; i++) expect((await call(t, { query: `q${i}` }, ctx)).isError).toBeUndefined();
    expect(seen.map((s) => s.provider)).toEqual(["a", "c", "d", "a"]);
  });

  test("random picks with the injected random source", async () => {
    seen.length = 0;
    const draws = [0.99, 0.0, 0.5];
    const providers = Object.fromEntries(Object.entries(KEYS).map(([name, key]) => [name, { enabled: name !== "search_b", key }]));
    const t = createWebSearchTool({ search: { strategy: "random", providers }, baseUrls: baseUrls(), random: () => draws.shift()! });
    for (let i = 0; i < 3; i++) await call(t, { query: "x" }, ctx);
    expect(seen.map((s) => s.provider)).toEqual(["d", "a", "c"]);
  });

  test("a clear error when no provider is enabled", async () => {
    for (const t of [tool([]), createWebSearchTool({}), createWebSearchTool({ search: null })]) {
      const r = await call(t, { query: "anything" }, ctx);
      expect(r.isError).toBe(true);
      expect(r.output).toStartWith("web_search has no enabled search provider.");
      expect(r.output).toContain("integrations.search.providers");
    }
  });

  test("keys never appear in errors or output, even when the provider echoes them", async () => {
    mode = "echo-key-401";
    try {
      const r = await call(tool(["search_a"]), { query: "x" }, ctx);
      expect(r.isError).toBe(true);
      expect(r.output).toStartWith("web_search via search_a (Brave Search API) got HTTP 401. The provider rejected the API key; the user should check integrations.search.providers.search_a.key.");
      expect(r.output).toContain("invalid key [redacted]");
      expect(r.output).not.toContain(KEYS.search_a);
    } finally {
      mode = "ok";
    }
    const down = createWebSearchTool({ search: { providers: { search_b: { enabled: true, key: KEYS.search_b } } }, baseUrls: { search_b: "http://127.0.0.1:1" } });
    const r = await call(down, { query: "x" }, ctx);
    expect(r.output).toBe("web_search via search_b (Tavily Search API) failed: Connection refused by 127.0.0.1:1: nothing is listening there. Check the host and port.");
  });

  test("a response that is not the documented shape is an error naming the provider", async () => {
    mode = "broken";
    try {
      const r = await call(tool(["search_d"]), { query: "x" }, ctx);
      expect(r.isError).toBe(true);
      expect(r.output).toBe("web_search via search_d (Serper Google Search API) returned a response that could not be read: the response's `organic` is not a list.");
    } finally {
      mode = "ok";
    }
  });
});
