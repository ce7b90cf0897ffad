import { describe, expect, test } from "bun:test";
import { authHeader, mergeHeaders, resolveAuth } from "../../src/providers/auth-headers.ts";
import { ProviderError } from "../../src/providers/errors.ts";
import { PROTOCOLS, PROTOCOL_INFO } from "../../src/providers/protocols.ts";
import { ProviderConfigError, resolveProvider } from "../../src/providers/resolve.ts";
import { ProviderUrlError, providerEndpoint } from "../../src/providers/urls.ts";

describe("URL joining", () => {
  test.each([
    ["a_messages", "https://api.example.com", "https://api.example.com/v1/messages", "https://api.example.com/v1/models"],
    ["a_messages", "https://api.example.com/", "https://api.example.com/v1/messages", "https://api.example.com/v1/models"],
    ["a_messages", "https://gw.example.com/anthropic", "https://gw.example.com/anthropic/v1/messages", "https://gw.example.com/anthropic/v1/models"],
    ["b_chat_completions", "https://api.example.com/v1", "https://api.example.com/v1/chat/completions", "https://api.example.com/v1/models"],
    ["b_chat_completions", "http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000/v1/chat/completions", "http://127.0.0.1:8000/v1/models"],
    ["b_chat_completions", "https://x.example.com/api/paas/v4", "https://x.example.com/api/paas/v4/chat/completions", "https://x.example.com/api/paas/v4/models"],
    ["b_responses", "https://api.example.com", "https://api.example.com/v1/responses", "https://api.example.com/v1/models"],
    ["b_responses", "https://api.example.com/v1", "https://api.example.com/v1/responses", "https://api.example.com/v1/models"],
    ["b_responses", "https://api.example.com/v1/", "https://api.example.com/v1/responses", "https://api.example.com/v1/models"],
    ["b_responses", "https://res.example.com/openai/v1", "https://res.example.com/openai/v1/responses", "https://res.example.com/openai/v1/models"],
    ["b_responses", "https://gw.example.com/proxy", "https://gw.example.com/proxy/v1/responses", "https://gw.example.com/proxy/v1/models"],
  ] as const)("%s %s", (dialect, base, stream, models) => {
    expect(providerEndpoint(base, dialect, "stream")).toBe(stream);
    expect(providerEndpoint(base, dialect, "models")).toBe(models);
  });

  test("a query string survives the join", () => {
    expect(providerEndpoint("https://h.example.com/v1?api-version=x", "b_chat_completions", "stream")).toBe("https://h.example.com/v1/chat/completions?api-version=x");
  });

  test("bad URLs are clear errors", () => {
    expect(() => providerEndpoint("api.example.com", "b_responses", "stream")).toThrow(ProviderUrlError);
    expect(() => providerEndpoint("ftp://h.example.com", "b_responses", "stream")).toThrow(/http or https/);
    expect(() => providerEndpoint("https://api.example.com/v1", "a_messages", "stream")).toThrow(/origin without the \/v1/);
  });
});

describe("auth headers", () => {
  test("formats", () => {
    expect(authHeader("bearer_token", "k")).toEqual(["authorization", "Bearer k"]);
    expect(authHeader("a_x_api_key", "k")).toEqual(["x-api-key", "k"]);
    expect(authHeader("c_api_key", "k")).toEqual(["api-key", "k"]);
  });

  test("static_key trims whitespace and newlines, keeps every other character; explicit format wins", async () => {
    expect(await resolveAuth({ type: "static_key", key: "  ab.c-d_e\n" }, "a_x_api_key", null)).toEqual({ headers: { "x-api-key": "ab.c-d_e" }, secrets: ["ab.c-d_e"] });
    expect((await resolveAuth({ type: "static_key", key: "k1", format: "c_api_key" }, "a_x_api_key", null)).headers).toEqual({ "api-key": "k1" });
    expect(await resolveAuth({ type: "no_auth" }, "bearer_token", null)).toEqual({ headers: {}, secrets: [] });
  });

  test("an empty key and a device profile without a login source are typed auth errors", async () => {
    expect(await resolveAuth({ type: "static_key", key: " \n" }, null, null).catch((e) => e)).toBeInstanceOf(ProviderError);
    const e = await resolveAuth({ type: "device_b", profile: "work" }, null, null).catch((e) => e);
    expect(e).toMatchObject({ kind: "auth", code: "device_login_unavailable" });
    const ok = await resolveAuth({ type: "device_a", profile: "p" }, null, { accessToken: async (kind, profile) => `${kind}:${profile}:tok` });
    expect(ok.headers).toEqual({ authorization: "Bearer device_a:p:tok" });
  });

  test("header merge: later layers win case-insensitively", () => {
    expect(mergeHeaders({ "Anthropic-Version": "1" }, { "anthropic-version": "2", "X-A": "a" }, { "x-a": "b" })).toEqual({ "anthropic-version": "2", "x-a": "b" });
  });
});

describe("protocol table and provider resolution", () => {
  test("17 protocols, each mapped to a base dialect", () => {
    expect(PROTOCOLS.length).toBe(17);
    expect(PROTOCOLS.filter((p) => p.endsWith("_chat_completions")).length).toBe(9);
    expect(PROTOCOLS.filter((p) => p.endsWith("_messages")).length).toBe(5);
    // `test` (the offline demo) is served as Chat Completions by an in-process server.
    for (const p of PROTOCOLS) expect(PROTOCOL_INFO[p].baseDialect).toBe(p.endsWith("_messages") ? "a_messages" : p === "test" || p.endsWith("_chat_completions") ? "b_chat_completions" : "b_responses");
    // Real vendor addresses: https on a vendor's domain, or a local server on loopback; never a placeholder.
    for (const p of PROTOCOLS) if (PROTOCOL_INFO[p].defaultUrl) expect(PROTOCOL_INFO[p].defaultUrl).toMatch(/^(https:\/\/[a-z0-9.-]+\.(com|ai|io)(\/|$)|http:\/\/127\.0\.0\.1:\d+\/v1$)/);
    for (const p of PROTOCOLS) expect(PROTOCOL_INFO[p].defaultUrl ?? "").not.toContain(".example");
  });

  test("custom kinds default their protocol; Responses must be explicit for chat-style custom providers", () => {
    expect(resolveProvider("a", { kind: { type: "custom_a_compatible" }, url: "https://h.example.com" }).protocol).toBe("a_messages");
    expect(resolveProvider("b", { kind: { type: "custom_b_compatible" }, url: "https://h.example.com/v1" }).protocol).toBe("b_chat_completions");
    expect(resolveProvider("b", { kind: { type: "custom_b_compatible" }, url: "https://h.example.com/v1", protocol: "b_responses" }).streamUrl).toBe("https://h.example.com/v1/responses");
    expect(resolveProvider("r", { kind: { type: "custom_b_responses" }, url: "https://h.example.com" }).streamUrl).toBe("https://h.example.com/v1/responses");
  });

  test("catalog kind: catalog protocol and URL; `url` overrides the catalog default", () => {
    const catalog = { protocol: "d_chat_completions" as const, url: "https://cat.example/v1" };
    const p = resolveProvider("d", { kind: { type: "catalog", name: "d" } }, catalog);
    expect(p.streamUrl).toBe("https://cat.example/v1/chat/completions");
    expect(p.info.reasoningDeltaField).toBe("reasoning_content");
    expect(resolveProvider("d", { kind: { type: "catalog", name: "d" }, url: "https://mirror.example/v1" }, catalog).modelsUrl).toBe("https://mirror.example/v1/models");
    expect(() => resolveProvider("z", { kind: { type: "catalog", name: "nope" } }, null)).toThrow(/not a provider of the built-in catalog/);
  });

  test("cache_control_strategy: the configured value, else none (the model family decides, not the address)", () => {
    const first = resolveProvider("a", { kind: { type: "catalog", name: "a" } }, { protocol: "a_messages", url: PROTOCOL_INFO.a_messages.defaultUrl });
    expect(first.cacheStrategy).toBeNull();
    expect(resolveProvider("p", { kind: { type: "custom_a_compatible" }, url: "https://proxy.example.com" }).cacheStrategy).toBeNull();
    expect(resolveProvider("p", { kind: { type: "custom_a_compatible" }, url: "https://proxy.example.com", cache_control_strategy: "breakpoints" }).cacheStrategy).toBe("breakpoints");
    expect(resolveProvider("a", { kind: { type: "catalog", name: "a" }, cache_control_strategy: "provider_managed" }, { protocol: "a_messages", url: null }).cacheStrategy).toBe("provider_managed");
  });

  test("cloud-hosted Responses base uses the api-key format; variants keep their recommended format", () => {
    expect(resolveProvider("az", { kind: { type: "custom_b_responses" }, url: "https://res.example.com/openai/v1" }).authFormat).toBe("c_api_key");
    expect(resolveProvider("a", { kind: { type: "custom_a_compatible" }, url: "https://h.example.com" }).authFormat).toBe("a_x_api_key");
    expect(resolveProvider("l", { kind: { type: "custom_a_compatible" }, url: "https://h.example.com", protocol: "l_messages" }).authFormat).toBe("bearer_token");
  });

  test("configured headers merge over protocol defaults; invalid names and missing urls are config errors", () => {
    const p = resolveProvider("e", { kind: { type: "custom_b_compatible" }, url: "https://h.example.com/v1", protocol: "e_chat_completions", headers: { "X-Title": "mine", "x-extra": "1" } });
    expect(p.headers).toEqual({ "x-title": "mine", "x-extra": "1" });
    expect(() => resolveProvider("bad", { kind: { type: "custom_b_compatible" }, url: "https://h.example.com/v1", headers: { "bad header": "x" } })).toThrow(ProviderConfigError);
    expect(() => resolveProvider("nourl", { kind: { type: "custom_b_compatible" } })).toThrow(/url is required/);
    expect(() => resolveProvider("mix", { kind: { type: "custom_a_compatible" }, url: "https://h.example.com", protocol: "b_chat_completions" })).toThrow(/does not fit kind/);
  });
});
