// Route scope checks at the edge, target-object checks in the route (separate paths), and streams opened
// with a token that is later revoked: by the OAuth revoke endpoint, the dashboard, or an admin command
// in another process.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { serviceCredentialVerifier } from "../../src/gateway/auth/bearer.ts";
import { createGatewayContext } from "../../src/gateway/context.ts";
import { parseGatewayConfig } from "../../src/gateway/config/load.ts";
import type { GatewayContext } from "../../src/gateway/context.ts";
import { authenticate } from "../../src/gateway/server/auth-guard.ts";
import { addUser, gatewayStorageYaml, sqlAll, startTestGateway, type TestGateway } from "./helpers.ts";
import { call, confidentialClient, basic } from "./oauth-helpers.ts";

// A stand-in SSE stream (the session proxy is the real one, sessions/proxy.ts).
const probes = (ctx: GatewayContext) =>
  new Elysia()
    .get("/api/v1/events", async ({ request }) => {
      const tracked = ctx.streams.track(await authenticate(ctx, request));
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(": open\n\n"));
          tracked.signal.addEventListener("abort", () => {
            tracked.release();
            controller.close();
          });
        },
        cancel: () => tracked.release(),
      });
      return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
    });

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway("", { groups: [probes] });
});
afterAll(() => gw.stop());

async function seedSession(n: string): Promise<string> {
  const now = gw.clock.now();
  await sqlAll(gw.ctx.db, "INSERT INTO configurations (name, format, created_at, updated_at) VALUES (?, 'yaml', ?, ?)", [`cfg-${n}`, now, now]);
  await sqlAll(gw.ctx.db, "INSERT INTO projects (id, path, config_name, registered_at, updated_at) VALUES (?, ?, ?, ?, ?)", [n, `/p/${n}`, `cfg-${n}`, now, now]);
  await sqlAll(gw.ctx.db, "INSERT INTO sessions (id, project_id, launch_mode, state, current_generation_id, created_at, updated_at) VALUES (?, ?, 'project_direct', 'running', ?, ?, ?)", [`ses_${n}`, n, `gen${n}`, now, now]);
  const token = `dsc_gen${n}.${"s".repeat(24)}`;
  await sqlAll(gw.ctx.db, "INSERT INTO service_credentials (generation_id, session_id, state, verifier, created_at) VALUES (?, ?, 'active', ?, ?)", [`gen${n}`, `ses_${n}`, serviceCredentialVerifier(gw.ctx.pepper, token), now]);
  return token;
}

/** Opens the probe stream and resolves when the server ends it. */
async function openStream(token: string): Promise<{ ended: Promise<void> }> {
  const res = await fetch(`${gw.url}/api/v1/events`, { headers: { Authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  expect(new TextDecoder().decode((await reader.read()).value)).toBe(": open\n\n");
  return { ended: reader.read().then(({ done }) => expect(done).toBe(true)) };
}

describe("scope and target checks", () => {
  test("a daemon credential reaches only its own session through the proxy; it holds no management scope", async () => {
    const own = await seedSession("aaaa0001");
    await seedSession("aaaa0002");
    const get = (path: string) => fetch(`${gw.url}${path}`, { headers: { Authorization: `Bearer ${own}` } });
    // Past the scope and target checks: the seeded session has no live daemon, so the proxy answers 502.
    expect((await get("/api/v1/sessions/ses_aaaa0001/proxy/sync")).status).toBe(502);
    const foreign = await get("/api/v1/sessions/ses_aaaa0002/proxy/sync");
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toEqual({ error: "forbidden", message: "a daemon credential may only reach its own session" });
    expect((await get("/api/v1/sessions")).status).toBe(403);
  });

  test("a machine client token reaches any session (scope check passes; no target restriction)", async () => {
    const [id, secret] = await confidentialClient(gw, ["machine"]);
    const token = (await call(gw, "token", { grant_type: "client_credentials" }, { Authorization: basic(id, secret) })).body.access_token;
    const res = await fetch(`${gw.url}/api/v1/sessions/ses_any/proxy/sync`, { headers: { Authorization: `Bearer ${token}` } });
    // Past the scope check (no target restriction): the proxy itself answers that the session is unknown.
    expect([res.status, (await res.json()).error]).toEqual([404, "not_found"]);
  });

  test("every /api route outside the public list needs a token (401 identical body), also unknown ones", async () => {
    for (const path of ["/api/v1/configurations", "/api/v1/sessions/x/proxy/y", "/api/v1/services/identity", "/api/v1/anything"]) {
      const res = await fetch(`${gw.url}${path}`);
      expect([res.status, await res.text()]).toEqual([401, '{"error":"unauthorized"}']);
    }
  });
});

describe("streams close when their token is revoked", () => {
  test("through the OAuth revoke endpoint", async () => {
    const [id, secret] = await confidentialClient(gw, ["machine"]);
    const token = (await call(gw, "token", { grant_type: "client_credentials" }, { Authorization: basic(id, secret) })).body.access_token;
    const stream = await openStream(token);
    expect(gw.ctx.streams.size).toBe(1);
    expect((await call(gw, "revoke", { token }, { Authorization: basic(id, secret) })).status).toBe(200);
    await stream.ended;
    expect(gw.ctx.streams.size).toBe(0);
  });

  test("by an admin command in another process (a PAT revoked through a second database connection)", async () => {
    const ada = await addUser(gw, "ada", "correct horse battery");
    const { info, token } = await gw.ctx.pats.create(ada, "stream");
    const stream = await openStream(token);
    const other = await createGatewayContext({ config: parseGatewayConfig(`${gatewayStorageYaml(gw)}auth: {}\n`, "/x.yaml"), env: {} });
    await other.pats.revoke(info.id);
    await other.db.close();
    await stream.ended; // picked up by the periodic sweep
  });

  test("an unrelated revocation leaves other streams open", async () => {
    const [id, secret] = await confidentialClient(gw, ["machine"]);
    const issue = async () => (await call(gw, "token", { grant_type: "client_credentials" }, { Authorization: basic(id, secret) })).body.access_token as string;
    const keep = await issue();
    const drop = await issue();
    const kept = await openStream(keep);
    const dropped = await openStream(drop);
    await call(gw, "revoke", { token: drop }, { Authorization: basic(id, secret) });
    await dropped.ended;
    expect(gw.ctx.streams.size).toBe(1);
    await call(gw, "revoke", { token: keep }, { Authorization: basic(id, secret) });
    await kept.ended;
  });
});
