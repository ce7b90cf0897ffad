// Checklist rows of the token endpoint (RFC 6749) and client authentication, with raw HTTP requests:
// form-only, duplicated parameters, one auth method per request, Basic decoding, invalid_client with its
// challenge, no-store on every response, no redirects, client_credentials for confidential clients only.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway, sqlAll } from "./helpers.ts";
import { basic, call, confidentialClient, postForm, publicClient } from "./oauth-helpers.ts";

let gw: TestGateway;
let pub: string;
let conf: [string, string];
beforeAll(async () => {
  gw = await startTestGateway("", { auth: "  oauth_token_rate_limit: {max_attempts: 1000, window_secs: 60, lockout_secs: 60}\n" });
  pub = await publicClient(gw);
  conf = await confidentialClient(gw, ["machine"]);
});
afterAll(() => gw.stop());

const cc = (extra: Record<string, string> = {}) => ({ grant_type: "client_credentials", ...extra });

describe("token endpoint", () => {
  test("POST with a form only: GET is 405, a JSON body is invalid_request", async () => {
    const get = await fetch(`${gw.url}/api/v1/oauth/token`, { redirect: "manual" });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const json = await fetch(`${gw.url}/api/v1/oauth/token`, { method: "POST", headers: { "Content-Type": "application/json", Authorization: basic(...conf) }, body: JSON.stringify(cc()) });
    expect(json.status).toBe(400);
    expect(((await json.json()) as any).error).toBe("invalid_request");
  });

  test("a parameter sent twice is invalid_request; an empty one counts as absent; unknown ones are ignored", async () => {
    const dup = await call(gw, "token", "grant_type=client_credentials&scope=machine&scope=machine", { Authorization: basic(...conf) });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ error: "invalid_request", error_description: "the parameter 'scope' was sent more than once" });
    const empty = await call(gw, "token", "grant_type=client_credentials&scope=&colour=blue", { Authorization: basic(...conf) });
    expect(empty.status).toBe(200);
    expect(empty.body.scope).toBe("machine");
    const noGrant = await call(gw, "token", "grant_type=", { Authorization: basic(...conf) });
    expect(noGrant.body.error).toBe("invalid_request");
  });

  test("client_secret_basic (form-urlencoded before base64) and client_secret_post work; both at once is invalid_request", async () => {
    const [id, secret] = conf;
    // Appendix B: the id is form-urlencoded before base64 — an encoded character must be decoded.
    const encodedId = `${id.slice(0, -1)}%${id.charCodeAt(id.length - 1).toString(16)}`;
    const viaBasic = await call(gw, "token", cc(), { Authorization: `Basic ${Buffer.from(`${encodedId}:${secret}`).toString("base64")}` });
    expect(viaBasic.status).toBe(200);
    expect((await call(gw, "token", cc({ client_id: id, client_secret: secret }))).status).toBe(200);
    const both = await call(gw, "token", cc({ client_secret: secret }), { Authorization: basic(id, secret) });
    expect(both.status).toBe(400);
    expect(both.body.error).toBe("invalid_request");
    const mismatch = await call(gw, "token", cc({ client_id: pub }), { Authorization: basic(id, secret) });
    expect(mismatch.body).toEqual({ error: "invalid_request", error_description: "client_id in the body differs from the one in the Authorization header" });
  });

  test("invalid_client is 401, with a Basic challenge only when Basic was used", async () => {
    const [id] = conf;
    const viaBasic = await call(gw, "token", cc(), { Authorization: basic(id, "cs_wrong") });
    expect(viaBasic.status).toBe(401);
    expect(viaBasic.body.error).toBe("invalid_client");
    expect(viaBasic.headers.get("www-authenticate")).toStartWith("Basic ");
    const viaPost = await call(gw, "token", cc({ client_id: id, client_secret: "cs_wrong" }));
    expect(viaPost.status).toBe(401);
    expect(viaPost.headers.get("www-authenticate")).toBeNull();
    expect((await call(gw, "token", cc({ client_id: "cli_nobody", client_secret: "x" }))).status).toBe(401);
    expect((await call(gw, "token", cc())).status).toBe(401); // no client at all
    // A public client must not present a secret.
    expect((await call(gw, "token", cc({ client_id: pub, client_secret: "anything" }))).body.error).toBe("invalid_client");
  });

  test("client_credentials is for confidential clients only and issues no refresh token; scope narrows, never widens", async () => {
    const asPublic = await call(gw, "token", cc({ client_id: pub }));
    expect(asPublic.body.error).toBe("unauthorized_client");
    const ok = await call(gw, "token", cc(), { Authorization: basic(...conf) });
    expect(Object.keys(ok.body).sort()).toEqual(["access_token", "expires_in", "scope", "token_type"]);
    expect(ok.body.access_token).toMatch(/^oat_[A-Za-z0-9_-]{43}$/); // 256 random bits
    const wider = await call(gw, "token", cc({ scope: "machine project" }), { Authorization: basic(...conf) });
    expect(wider.status).toBe(400);
    expect(wider.body.error).toBe("invalid_scope");
    const stored = (await sqlAll(gw.ctx.db, "SELECT token_hash FROM oauth_access_tokens")) as Array<{ token_hash: string }>;
    expect(stored.every((r) => /^[0-9a-f]{64}$/.test(r.token_hash))).toBe(true);
    expect(JSON.stringify(stored)).not.toContain(ok.body.access_token.slice(4));
  });

  test("unknown grant types are unsupported_grant_type; a grant the client was not registered for is unauthorized_client", async () => {
    expect((await call(gw, "token", { grant_type: "password", username: "a", password: "b" }, { Authorization: basic(...conf) })).body.error).toBe("unsupported_grant_type");
    expect((await call(gw, "token", { grant_type: "refresh_token", refresh_token: "rt_x" }, { Authorization: basic(...conf) })).body.error).toBe("unauthorized_client");
  });

  test("every response carries no-store and Pragma: no-cache (success, errors, 405, 413); the metadata stays cacheable", async () => {
    const responses = [
      await postForm(gw, "token", cc(), { Authorization: basic(...conf) }),
      await postForm(gw, "token", cc(), { Authorization: basic(conf[0], "nope") }),
      await postForm(gw, "token", "a=1&a=2"),
      await fetch(`${gw.url}/api/v1/oauth/revoke`),
      await postForm(gw, "revoke", { token: "x", client_id: pub }),
      await postForm(gw, "register", "x".repeat(17 * 1024)),
      await fetch(`${gw.url}/api/v1/oauth/register`, { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"redirect_uris":["https://x"]}' }),
      await postForm(gw, "device_authorization", { client_id: pub, scope: "root" }),
    ];
    for (const res of responses) {
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.headers.get("pragma")).toBe("no-cache");
    }
    expect(responses.map((r) => r.status)).toEqual([200, 401, 400, 405, 200, 413, 400, 400]);
    const meta = await fetch(`${gw.url}/.well-known/oauth-authorization-server`);
    expect(meta.headers.get("cache-control")).toBe("public, max-age=300");
    expect(meta.headers.get("pragma")).toBeNull();
  });

  test("never a redirect: a trailing slash or a doubled slash is not answered with 30x", async () => {
    for (const path of ["/api/v1/oauth/token/", "/api/v1/oauth//token", "/.well-known/oauth-authorization-server/"]) {
      const res = await fetch(`${gw.url}${path}`, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "grant_type=client_credentials" });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.headers.get("location")).toBeNull();
    }
  });

  test("error descriptions use only the characters RFC 6749 §5.2 allows and never echo input", async () => {
    const weird = await call(gw, "token", 'grant_type="\\<script>&x"=1', { Authorization: basic(...conf) });
    expect(weird.body.error).toBe("unsupported_grant_type");
    const dup = await call(gw, "token", "%22%5C=1&%22%5C=2");
    for (const body of [weird.body, dup.body]) expect(body.error_description).toMatch(/^[\x20-\x21\x23-\x5B\x5D-\x7E]*$/);
    expect(dup.body.error_description).not.toContain('"');
  });
});

describe("internal errors", () => {
  test("a database failure is server_error with a request id and no internals; the log line has no secret", async () => {
    const logged: string[] = [];
    const broken = await startTestGateway("", { logger: { info() {}, warn() {}, error: (m) => logged.push(m) } });
    try {
      const [id, secret] = await confidentialClient(broken, ["machine"]);
      await sqlAll(broken.ctx.db, "DROP TABLE oauth_access_tokens");
      const res = await call(broken, "token", cc(), { Authorization: basic(id, secret) });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: "server_error", error_description: expect.stringMatching(/^internal error \(request req_\w+\)$/) });
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(logged.join("\n")).not.toContain(secret);
    } finally {
      await broken.stop();
    }
  });

  test("a bearer token in the query string is never accepted", async () => {
    const token = (await call(gw, "token", cc(), { Authorization: basic(...conf) })).body.access_token;
    const res = await fetch(`${gw.url}/api/v1/configurations?access_token=${token}`);
    expect(res.status).toBe(401);
  });
});

describe("token endpoint limiter", () => {
  test("the token endpoint is rate-limited per source (client secrets are passwords: brute force is bounded)", async () => {
    const limited = await startTestGateway("", { auth: "  oauth_token_rate_limit: {max_attempts: 3, window_secs: 60, lockout_secs: 60}\n" });
    try {
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await call(limited, "token", cc({ client_id: "cli_x", client_secret: `guess-${i}` }))).status);
      expect(statuses).toEqual([401, 401, 401, 429]);
      const locked = await call(limited, "token", cc({ client_id: "cli_x", client_secret: "guess" }));
      expect(locked.headers.get("retry-after")).toBe("60");
      expect([locked.headers.get("cache-control"), locked.headers.get("pragma")]).toEqual(["no-store", "no-cache"]);
      limited.clock.advance(60_000);
      expect((await call(limited, "token", cc({ client_id: "cli_x", client_secret: "guess" }))).status).toBe(401);
    } finally {
      await limited.stop();
    }
  });
});
