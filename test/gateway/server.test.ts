import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import { VERSION } from "../../src/version.ts";
import { runCli } from "../../src/cli/run.ts";
import { captureIo } from "../helpers/io.ts";
import { addUser, gatewayStorageYaml, sqlAll, sqlGet, startTestGateway, TEST_DB, type TestGateway } from "./helpers.ts";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway("display_name: Test Gateway\n");
});
afterAll(() => gw.stop());

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${gw.url}${path}`, { headers });

describe("core routes", () => {
  test("health reports status, name and the startup migration", async () => {
    const res = await get("/api/v1/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok", name: "Test Gateway", migrated_at_startup: true });
  });

  test("version reports the gateway and database engine versions", async () => {
    const body = (await (await get("/api/v1/version")).json()) as { version: string; database: { engine: string; version: string } };
    expect(body.version).toBe(VERSION);
    if (TEST_DB === "pg") {
      expect(body.database.engine).toBe("postgresql");
      expect(body.database.version).toMatch(/^\d+\.\d+/);
    } else {
      expect(body.database.engine).toBe("sqlite");
      expect(body.database.version).toMatch(/^3\.\d+\.\d+$/);
    }
  });

  test("openapi.json is a valid OpenAPI 3.1 document of the API routes, same as `agent print gateway-openapi`", async () => {
    const res = await get("/api/v1/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toStartWith("3.1");
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/api/v1/health", "/api/v1/version"]));
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith("/api/") && !p.startsWith("/.well-known/"))).toEqual([]);
    expect(Object.keys(doc.paths).some((p) => p.includes("/proxy"))).toBe(false);
    await SwaggerParser.validate(structuredClone(doc) as never);
    const io = captureIo();
    expect(await runCli(["print", "gateway-openapi", "--format", "json"], io)).toBe(0);
    expect(JSON.parse(io.stdout).paths).toEqual(doc.paths);
  });
});

describe("bearer authentication", () => {
  test("every authentication failure is a 401 with the byte-identical body", async () => {
    const id = await addUser(gw, "ada", "correct horse battery");
    const { info, token: revoked } = await gw.ctx.pats.create(id, "old");
    await gw.ctx.pats.revoke(info.id);
    const cases = [
      "Bearer pat_unknownunknownunknownunknownunknown00",
      `Bearer ${revoked}`,
      "Bearer oat_neverissuedneverissuedneverissued000",
      "Bearer dsc_gen.secret",
      "Bearer xyz_other-family",
      "Basic YWRhOnB3",
      "Bearer ",
      `Bearer ${"a".repeat(600)}`,
    ];
    for (const header of cases) {
      const res = await get("/api/v1/health", { Authorization: header });
      expect(res.status).toBe(401);
      expect(await res.text()).toBe('{"error":"unauthorized"}');
      expect(res.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');
    }
  });

  test("PAT lifecycle: create, use, last-used recorded, revoke, then 401", async () => {
    const id = (await gw.ctx.principals.create("grace")).id;
    const { info, token } = await gw.ctx.pats.create(id, "ci");
    expect(token).toMatch(/^pat_[A-Za-z0-9_-]{43}$/);
    const ok = await get("/api/v1/health", { Authorization: `Bearer ${token}` });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { authenticated: unknown }).authenticated).toEqual({ family: "pat", principal_id: id, username: "grace", scopes: ["machine", "project"] });
    expect((await gw.ctx.pats.get(info.id))!.lastUsedAt).toBe(gw.clock.now());
    const stored = (await sqlGet(gw.ctx.db, "SELECT token_hash FROM personal_access_tokens WHERE id = ?", [info.id])) as { token_hash: string };
    expect(stored.token_hash).toBe(new Bun.CryptoHasher("sha256").update(token).digest("hex"));
    expect(JSON.stringify((await sqlAll(gw.ctx.db, "SELECT * FROM personal_access_tokens")))).not.toContain(token);
    await gw.ctx.pats.revoke(info.id);
    const after = await get("/api/v1/health", { Authorization: `Bearer ${token}` });
    expect(after.status).toBe(401);
    expect(await after.text()).toBe('{"error":"unauthorized"}');
  });

  test("a token revoked by the CLI (another database connection) stops working on the next request", async () => {
    const id = (await gw.ctx.principals.create("cached")).id;
    const { info, token } = await gw.ctx.pats.create(id, "hot");
    for (let i = 0; i < 3; i++) expect((await get("/api/v1/health", { Authorization: `Bearer ${token}` })).status).toBe(200);
    const { writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const config = join(gw.dir, "cli.yaml");
    writeFileSync(config, `${gatewayStorageYaml(gw)}auth: {}\n`);
    const io = captureIo();
    expect(await runCli(["gateway", "token", "revoke", info.id, "--config", config], io)).toBe(0);
    expect((await get("/api/v1/health", { Authorization: `Bearer ${token}` })).status).toBe(401);
  });
});

describe("hardening", () => {
  test("security headers on API, web and error responses", async () => {
    for (const path of ["/api/v1/health", "/login", "/api/v1/nope"]) {
      const res = await get(path);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(res.headers.get("referrer-policy")).toBe(path === "/login" ? "same-origin" : "no-referrer");
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
  });

  test("unknown API routes are JSON 404s (401 without a token: API routes are closed by default), unknown pages are HTML 404s, never Bun's error page", async () => {
    expect(await (await get("/api/v1/nope?<script>")).text()).toBe('{"error":"unauthorized"}');
    const pat = (await gw.ctx.pats.create((await gw.ctx.principals.create(`u${Date.now()}`)).id, "404 probe")).token;
    const api = await get("/api/v1/nope?<script>", { Authorization: `Bearer ${pat}` });
    expect(api.status).toBe(404);
    expect(await api.text()).toBe('{"error":"not_found"}');
    const page = await get("/nope");
    expect(page.status).toBe(404);
    const html = await page.text();
    expect(html).toContain("<h1>Not found</h1>");
    expect(html).not.toContain("Bun");
  });

  test("bodies over the small limit on auth routes are refused with 413 before parsing", async () => {
    const big = "a".repeat(17 * 1024);
    const res = await fetch(`${gw.url}/login`, { method: "POST", body: `username=x&password=${big}`, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(res.status).toBe(413);
    expect(await res.text()).not.toContain(big.slice(0, 100));
    const chunked = new ReadableStream({
      start(c) {
        for (let i = 0; i < 20; i++) c.enqueue(new TextEncoder().encode("b".repeat(1024)));
        c.close();
      },
    });
    const res2 = await fetch(`${gw.url}/login`, { method: "POST", body: chunked, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(res2.status).toBe(413);
  });

  test("oversized headers are refused", async () => {
    const res = await get("/api/v1/health", { "X-Big": "h".repeat(64 * 1024) });
    expect(res.status).toBe(431);
  });
});

describe("internal auth failure", () => {
  test("a broken database gives 503 with no diagnostics and never lets the request through", async () => {
    const broken = await startTestGateway();
    const id = await addUser(broken, "lin", "correct horse battery");
    const { token } = await broken.ctx.pats.create(id, "t");
    await sqlAll(broken.ctx.db, "DROP TABLE personal_access_tokens");
    const res = await fetch(`${broken.url}/api/v1/health`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: "unavailable", message: "authentication is temporarily unavailable" });
    expect(text).not.toContain("personal_access_tokens");
    await broken.stop();
  });
});
