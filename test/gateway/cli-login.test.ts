// Terminal sign-in (gateway.md client rule 3) against a real gateway: the methods a client discovers,
// username + password exchanged for a refreshable OAuth grant that reaches the management routes, the
// byte-identical 401 for a wrong password, the login limiter, and bad requests refused by name.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { GatewayAuthError, GatewayClient } from "../../src/client/gateway-client.ts";
import { addUser, startTestGateway, tempDir, type TestGateway, sqlAll } from "./helpers.ts";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway("", { auth: "  rate_limit: {max_attempts: 3, window_secs: 60, lockout_secs: 300}\n" });
  await addUser(gw, "grace", "hopper-1906");
});
afterAll(() => gw.stop());

const post = (body: unknown) => fetch(`${gw.url}/api/v1/auth/login`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

describe("POST /api/v1/auth/login", () => {
  test("methods are public; without PAM the gateway offers password and device", async () => {
    const res = await fetch(`${gw.url}/api/v1/auth/methods`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ methods: ["password", "device"] });
  });

  test("a password sign-in stores a refreshable grant 0600 that holds the machine scope", async () => {
    const env = { XDG_DATA_HOME: tempDir("gw-login-") };
    const client = new GatewayClient({ baseUrl: gw.url, env, now: () => gw.clock.now() });
    const tokens = await client.passwordLogin("grace", "hopper-1906");
    expect(tokens.grant).toBe("password");
    expect(tokens.access_token).toStartWith("oat_");
    expect(tokens.refresh_token).toStartWith("rt_");
    expect(tokens.scope).toBe("machine project");
    expect(statSync(client.store.pathFor(gw.url)).mode & 0o777).toBe(0o600);
    const list = await fetch(`${gw.url}/api/v1/sessions`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(list.status).toBe(200);
    // Past the access token's life the stored refresh token gets a new one.
    gw.clock.advance(901_000);
    const next = await client.accessToken();
    expect(next).not.toBe(tokens.access_token);
    expect((await fetch(`${gw.url}/api/v1/sessions`, { headers: { Authorization: `Bearer ${next}` } })).status).toBe(200);
    const grants = (await sqlAll(gw.ctx.db, "SELECT g.client_id FROM oauth_grants g JOIN principals p ON p.id = g.principal_id WHERE p.username = 'grace'"));
    expect(grants).toEqual([{ client_id: tokens.client_id }]);
  });

  test("a wrong password is the identical 401; the limiter locks the source after its failures", async () => {
    const env = { XDG_DATA_HOME: tempDir("gw-login-") };
    const client = new GatewayClient({ baseUrl: gw.url, env });
    const error = await client.passwordLogin("grace", "s3cret-guess").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayAuthError);
    expect((error as GatewayAuthError).code).toBe("invalid_credentials");
    expect((error as Error).message).not.toContain("s3cret-guess");
    const clientId = client.store.load(gw.url).device_client_id!;
    const raw = await post({ client_id: clientId, username: "nobody", password: "x" });
    expect(raw.status).toBe(401);
    expect(await raw.text()).toBe('{"error":"unauthorized"}');
    await post({ client_id: clientId, username: "grace", password: "nope" });
    const locked = await post({ client_id: clientId, username: "grace", password: "hopper-1906" });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    gw.clock.advance(301_000);
    expect((await post({ client_id: clientId, username: "grace", password: "hopper-1906" })).status).toBe(200);
  });

  test("an unknown client is invalid_client; a missing field is named", async () => {
    const unknown = await post({ client_id: "cli_nope", username: "grace", password: "hopper-1906" });
    expect(unknown.status).toBe(401);
    expect((await unknown.json()).error).toBe("invalid_client");
    const missing = await post({ client_id: "cli_nope", username: "grace" });
    expect(missing.status).toBe(422);
    expect(JSON.stringify(await missing.json())).toContain("password");
  });
});
