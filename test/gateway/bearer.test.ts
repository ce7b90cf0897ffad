import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Elysia, t } from "elysia";
import { serviceCredentialVerifier } from "../../src/gateway/auth/bearer.ts";
import { loadPepper, PepperError } from "../../src/gateway/auth/pepper.ts";
import { ProtocolError } from "../../src/protocol/errors.ts";
import { authenticate, requireScope } from "../../src/gateway/server/auth-guard.ts";
import { sha256Hex } from "../../src/util/ids.ts";
import type { GatewayContext } from "../../src/gateway/context.ts";
import { startTestGateway, tempDir, type TestGateway, sqlAll, sqlGet } from "./helpers.ts";

// A route group like the ones later parts add: validated body, a scope-gated route, a crashing route.
const probeRoutes = (ctx: GatewayContext) =>
  new Elysia()
    .post("/api/v1/probe", ({ body }) => ({ ok: body.name.length }), { body: t.Object({ name: t.String(), password: t.String({ minLength: 12 }) }) })
    .get("/api/v1/probe/machine", async ({ request }) => {
      const auth = await authenticate(ctx, request);
      requireScope(auth, "machine");
      return { ok: true };
    })
    .get("/api/v1/probe/crash", () => {
      throw new Error("database file /secret/path is locked by pat_abcdefghijklmnopqrstuvwxyz");
    })
    .get("/api/v1/probe/teapot", () => {
      throw new ProtocolError("conflict", undefined, "the name exists");
    });

let gw: TestGateway;
let pat: string;
const logged: string[] = [];
beforeAll(async () => {
  gw = await startTestGateway("", { groups: [probeRoutes], logger: { info() {}, warn() {}, error: (m) => logged.push(m) } });
  pat = (await gw.ctx.pats.create((await gw.ctx.principals.create("prober")).id, "probe")).token;
});
const authed = (extra: Record<string, string> = {}) => ({ Authorization: `Bearer ${pat}`, ...extra });
afterAll(() => gw.stop());

const health = (token: string) => fetch(`${gw.url}/api/v1/health`, { headers: { Authorization: `Bearer ${token}` } });

async function seedSession(): Promise<{ sessionId: string }> {
  const now = gw.clock.now();
  const n = Math.random().toString(16).slice(2, 10);
  await sqlAll(gw.ctx.db, "INSERT INTO configurations (name, format, created_at, updated_at) VALUES (?, 'yaml', ?, ?)", [`cfg-${n}`, now, now]);
  await sqlAll(gw.ctx.db, "INSERT INTO projects (id, path, config_name, registered_at, updated_at) VALUES (?, ?, ?, ?, ?)", [n, `/p/${n}`, `cfg-${n}`, now, now]);
  await sqlAll(gw.ctx.db, "INSERT INTO sessions (id, project_id, launch_mode, state, created_at, updated_at) VALUES (?, ?, 'project_direct', 'running', ?, ?)", [`ses_${n}`, n, now, now]);
  return { sessionId: `ses_${n}` };
}

async function addCredential(sessionId: string, generation: string, state: "pending" | "active" | "invalidated"): Promise<string> {
  const token = `dsc_${generation}.${"s".repeat(20)}${generation}`;
  await sqlAll(gw.ctx.db, "INSERT INTO service_credentials (generation_id, session_id, state, verifier, created_at) VALUES (?, ?, ?, ?, ?)", [generation, sessionId, state, serviceCredentialVerifier(gw.ctx.pepper, token), gw.clock.now()]);
  return token;
}

describe("oat_ and dsc_ bearer families", () => {
  test("an OAuth access token works until it expires on the clock", async () => {
    const p = (await gw.ctx.principals.create("oauth-user")).id;
    const now = gw.clock.now();
    await sqlAll(gw.ctx.db, "INSERT INTO oauth_clients (id, name, client_type, grant_types, scopes, created_at) VALUES ('cli_t', 'c', 'public', '[]', '[\"project\"]', ?)", [now]);
    const oat = "oat_expiringexpiringexpiringexpiringexpiri";
    await sqlAll(gw.ctx.db, "INSERT INTO oauth_access_tokens (id, token_hash, client_id, principal_id, scopes, created_at, expires_at) VALUES ('at_t', ?, 'cli_t', ?, '[\"project\"]', ?, ?)", [sha256Hex(oat), p, now, now + 900_000]);
    const ok = await health(oat);
    expect(((await ok.json()) as { authenticated: unknown }).authenticated).toEqual({ family: "oat", principal_id: p, username: "oauth-user", scopes: ["project"] });
    const scoped = await fetch(`${gw.url}/api/v1/probe/machine`, { headers: { Authorization: `Bearer ${oat}` } });
    expect(scoped.status).toBe(403);
    expect(await scoped.json()).toEqual({ error: "insufficient_scope", message: "this route needs the 'machine' scope" });
    expect(scoped.headers.get("www-authenticate")).toBe('Bearer error="insufficient_scope", scope="machine"');
    gw.clock.advance(900_000);
    const expired = await health(oat);
    expect(expired.status).toBe(401);
    expect(await expired.text()).toBe('{"error":"unauthorized"}');
  });

  test("a daemon service credential: HMAC with the pepper, current generation only, pending becomes active, invalidated fails", async () => {
    const { sessionId } = await seedSession();
    const old = await addCredential(sessionId, "gen1", "active");
    const current = await addCredential(sessionId, "gen2", "pending");
    await sqlAll(gw.ctx.db, "UPDATE sessions SET current_generation_id = 'gen2' WHERE id = ?", [sessionId]);
    const res = await health(current);
    expect(((await res.json()) as { authenticated: unknown }).authenticated).toEqual({ family: "dsc", principal_id: null, username: null, scopes: ["current_session"] });
    expect((await sqlGet(gw.ctx.db, "SELECT state, activated_at FROM service_credentials WHERE generation_id = 'gen2'"))).toEqual({ state: "active", activated_at: gw.clock.now() });
    expect((await health(old)).status).toBe(401);
    expect((await health(current.replace(/.$/, "x"))).status).toBe(401);
    expect((await health("dsc_nosuchgen.secretsecretsecret")).status).toBe(401);
    await sqlAll(gw.ctx.db, "UPDATE service_credentials SET state = 'invalidated' WHERE generation_id = 'gen2'");
    expect((await health(current)).status).toBe(401);
  });
});

describe("error handling", () => {
  test("validation errors list paths and messages but never the submitted values", async () => {
    const res = await fetch(`${gw.url}/api/v1/probe`, { method: "POST", headers: authed({ "Content-Type": "application/json" }), body: JSON.stringify({ name: 5, password: "hunter2" }) });
    expect(res.status).toBe(422);
    const text = await res.text();
    expect(text).not.toContain("hunter2");
    const body = JSON.parse(text) as { error: string; errors: Array<{ path: string; message: string }> };
    expect(body.error).toBe("validation_failed");
    expect(body.errors.map((e) => e.path).sort()).toEqual(["/name", "/password"]);
  });

  test("malformed JSON is a 400 without echo", async () => {
    const res = await fetch(`${gw.url}/api/v1/probe`, { method: "POST", headers: authed({ "Content-Type": "application/json" }), body: '{"password": "hunter2' });
    expect(res.status).toBe(400);
    expect(await res.text()).toBe('{"error":"bad_request","message":"the request body could not be parsed"}');
  });

  test("an unexpected exception is a 500 with a request id; the log line is redacted", async () => {
    const res = await fetch(`${gw.url}/api/v1/probe/crash`, { headers: authed() });
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: string; request_id: string };
    expect(Object.keys(body).sort()).toEqual(["error", "request_id"]);
    expect(body.request_id).toMatch(/^req_/);
    const line = logged.find((l) => l.includes(body.request_id))!;
    expect(line).toContain("/secret/path is locked by [redacted]");
  });

  test("a ProtocolError keeps its code and status", async () => {
    const res = await fetch(`${gw.url}/api/v1/probe/teapot`, { headers: authed() });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ error: "conflict", message: "the name exists" });
  });
});

describe("pepper", () => {
  test("generated once with mode 0600 and reused; a configured pepper_file must be long and private", () => {
    const dir = tempDir();
    const a = loadPepper(dir, undefined);
    expect(loadPepper(dir, undefined)).toEqual(a);
    const file = join(dir, "pepper.txt");
    writeFileSync(file, "short\n");
    chmodSync(file, 0o600);
    expect(() => loadPepper(dir, file)).toThrow(new PepperError(`auth.password.pepper_file ${file} is too short: at least 32 characters of random data are required`));
    writeFileSync(file, `${"k".repeat(40)}\n`);
    chmodSync(file, 0o644);
    expect(() => loadPepper(dir, file)).toThrow(`run: chmod 600 ${file}`);
    chmodSync(file, 0o600);
    expect(new TextDecoder().decode(loadPepper(dir, file))).toBe("k".repeat(40));
  });
});
