// Dynamic client registration (RFC 7591) and the metadata document (RFC 8414): 201 with what was stored,
// unknown fields ignored, errors by name, confidential clients only with an initial access token, the
// shared OAuth resource limiter, and the issuer taken from auth.external_url.
import { afterEach, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway, sqlGet } from "./helpers.ts";
import { call } from "./oauth-helpers.ts";

let gw: TestGateway;
afterEach(() => gw?.stop());

const register = async (body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${gw.url}/api/v1/oauth/register`, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
};
const patWith = async () => (await gw.ctx.pats.create((await gw.ctx.principals.create(`admin${Math.floor(Math.random() * 1e6)}`)).id, "registrar")).token;

describe("dynamic client registration", () => {
  test("public by default: 201 with the stored metadata, substituted values included, unknown fields ignored", async () => {
    gw = await startTestGateway();
    const res = await register({ client_name: "laptop", logo_uri: "https://example.com/x.png", software_id: 42 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      client_id: expect.stringMatching(/^cli_/),
      client_id_issued_at: Math.floor(gw.clock.now() / 1000),
      client_name: "laptop",
      grant_types: ["urn:ietf:params:oauth:grant-type:device_code", "refresh_token"],
      response_types: [],
      token_endpoint_auth_method: "none",
      scope: "machine project",
    });
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect((await register({})).body.client_name).toBe("unnamed client");
    const narrow = await register({ client_name: "p", scope: "project" });
    expect(narrow.body.scope).toBe("project");
  });

  test("errors: invalid_redirect_uri, invalid_client_metadata (none + client_credentials, unknown grant, bad scope), JSON only", async () => {
    gw = await startTestGateway();
    const redirect = await register({ redirect_uris: ["https://app.example/cb"] });
    expect([redirect.status, redirect.body.error]).toEqual([400, "invalid_redirect_uri"]);
    for (const body of [
      { grant_types: ["client_credentials"], token_endpoint_auth_method: "none" },
      { grant_types: ["authorization_code"] },
      { response_types: ["code"] },
      { scope: "machine root" },
      { client_name: "x".repeat(101) },
      { token_endpoint_auth_method: "private_key_jwt" },
      { grant_types: "client_credentials" },
      [1, 2],
    ]) {
      const res = await register(body);
      expect([res.status, res.body.error]).toEqual([400, "invalid_client_metadata"]);
    }
    expect((await register("{not json")).body.error).toBe("invalid_request");
    const form = await call(gw, "register", { client_name: "x" });
    expect([form.status, form.body.error]).toEqual([400, "invalid_request"]);
  });

  test("confidential clients need an initial access token holding machine; the secret is issued once with client_secret_expires_at", async () => {
    gw = await startTestGateway();
    const ask = { client_name: "ci", grant_types: ["client_credentials"] };
    const anonymous = await register(ask);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.body).toEqual({ error: "unauthorized" });
    expect((await register(ask, { Authorization: "Bearer pat_forged" })).status).toBe(401);
    const ok = await register(ask, { Authorization: `Bearer ${await patWith()}` });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ client_secret: expect.stringMatching(/^cs_[A-Za-z0-9_-]{43}$/), client_secret_expires_at: 0, token_endpoint_auth_method: "client_secret_basic", grant_types: ["client_credentials"] });
    const row = (await sqlGet(gw.ctx.db, "SELECT secret_hash FROM oauth_clients WHERE id = ?", [ok.body.client_id])) as { secret_hash: string };
    expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    // Asking for a secret method alone also makes a confidential client.
    expect((await register({ token_endpoint_auth_method: "client_secret_post" })).status).toBe(401);
    expect((await gw.ctx.audit.list({ limit: 1 }))[0]).toMatchObject({ action: "client.register", outcome: "success", target: ok.body.client_id });
  });

  test("registration and device authorization share the OAuth resource limiter, counting every request", async () => {
    gw = await startTestGateway("", { auth: "  oauth_rate_limit: {max_attempts: 4, window_secs: 300, lockout_secs: 600}\n" });
    const client = (await register({ client_name: "a" })).body.client_id;
    await register({ redirect_uris: ["https://x"] }); // failures count too
    await call(gw, "device_authorization", { client_id: client });
    await call(gw, "device_authorization", { client_id: client });
    const refused = await register({ client_name: "b" });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("600");
    expect((await call(gw, "device_authorization", { client_id: client })).status).toBe(429);
    gw.clock.advance(600_000);
    expect((await register({ client_name: "c" })).status).toBe(201);
  });
});

describe("authorization server metadata", () => {
  test("issuer equals auth.external_url; endpoints follow it; served at the root and cacheable", async () => {
    gw = await startTestGateway("", { auth: "  external_url: https://gateway.example.com/\n" });
    const res = await fetch(`${gw.url}/.well-known/oauth-authorization-server`);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc).toMatchObject({
      issuer: "https://gateway.example.com",
      token_endpoint: "https://gateway.example.com/api/v1/oauth/token",
      device_authorization_endpoint: "https://gateway.example.com/api/v1/oauth/device_authorization",
      registration_endpoint: "https://gateway.example.com/api/v1/oauth/register",
      revocation_endpoint: "https://gateway.example.com/api/v1/oauth/revoke",
      response_types_supported: [],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
      revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
      scopes_supported: ["machine", "project"],
    });
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    const client = (await register({ client_name: "x" })).body.client_id;
    expect((await call(gw, "device_authorization", { client_id: client })).body.verification_uri).toBe("https://gateway.example.com/device");
  });

  test("an issuer with a path is also served at /.well-known/oauth-authorization-server/<path> (RFC 8414 §3)", async () => {
    gw = await startTestGateway("", { auth: "  external_url: https://example.com/gw\n" });
    const res = await fetch(`${gw.url}/.well-known/oauth-authorization-server/gw`);
    expect(((await res.json()) as { issuer: string }).issuer).toBe("https://example.com/gw");
  });
});
