// The TypeBox schemas of src/protocol are shared by the daemon, the gateway, the clients and ajv: no
// server may change them. Elysia writes `additionalProperties: false` onto the root object of every body
// and response schema it compiles, whatever its `normalize` option, the first time a route is dispatched;
// in a process that had served a route, every other check with the same schema (the fleet observer's,
// Value.Check, ajv) then refused the extra fields a newer peer may send. Here the real daemon and gateway
// apps are built, serve requests and compile every route, and each exported schema must be as it was.
// Every Elysia instance of src/ is made by src/util/elysia-app.ts, which hands Elysia copies.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Kind } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { Elysia, t } from "elysia";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { buildDaemonApp } from "../../src/daemon/app.ts";
import { daemonOpenApiDocument } from "../../src/daemon/openapi.ts";
import { buildGatewayApp, OPENAPI_PATH, renderOpenApi } from "../../src/gateway/server/app.ts";
import { SyncStatusRecord } from "../../src/protocol/sync-shapes.ts";
import { startHarness, type Harness } from "../daemon/harness.ts";
import { startTestGateway, type TestGateway } from "../gateway/helpers.ts";

const root = join(import.meta.dir, "../..");
const PROTOCOL = join(root, "src/protocol");

/** A plain copy of a value, symbol keys (TypeBox's Kind, OptionalKind ...) written as `@@name`. */
function snapshot(value: unknown, path: unknown[] = []): unknown {
  if (typeof value === "function") return "[function]";
  if (typeof value !== "object" || value === null) return value;
  if (path.includes(value)) return "[cycle]";
  const inner = [...path, value];
  if (Array.isArray(value)) return value.map((v) => snapshot(v, inner));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = snapshot((value as Record<string, unknown>)[key], inner);
  for (const sym of Object.getOwnPropertySymbols(value)) out[`@@${sym.description}`] = snapshot((value as Record<symbol, unknown>)[sym], inner);
  return out;
}

function differences(before: unknown, after: unknown, at: string, out: string[]): void {
  if (typeof before !== "object" || before === null || typeof after !== "object" || after === null) {
    if (before !== after) out.push(`${at}: ${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
    return;
  }
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const key of keys) differences((before as Record<string, unknown>)[key], (after as Record<string, unknown>)[key], `${at}/${key}`, out);
}

function holdsSchema(value: unknown, seen = new Set<unknown>()): boolean {
  if (typeof value !== "object" || value === null || seen.has(value)) return false;
  seen.add(value);
  if (Kind in value) return true;
  return Object.values(value).some((v) => holdsSchema(v, seen));
}

/** Every export of src/protocol that is, or holds, a TypeBox schema: "file export" -> the live object. */
async function protocolSchemas(): Promise<Map<string, unknown>> {
  const found = new Map<string, unknown>();
  for (const file of readdirSync(PROTOCOL).filter((f) => f.endsWith(".ts")).sort()) {
    const mod = (await import(join(PROTOCOL, file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(mod)) if (holdsSchema(value)) found.set(`src/protocol/${file} ${name}`, value);
  }
  return found;
}

/** Compiles every route of an app, as its first request would (Elysia compiles a route lazily). */
function compileEveryRoute(app: { routes: unknown[] }): number {
  let compiled = 0;
  for (const route of app.routes as { compile?: () => unknown }[]) {
    if (typeof route.compile !== "function") continue;
    route.compile();
    compiled++;
  }
  return compiled;
}

describe("shared protocol schemas", () => {
  let schemas: Map<string, unknown>;
  const before = new Map<string, unknown>();
  let daemon: Harness;
  let gateway: TestGateway;

  beforeAll(async () => {
    schemas = await protocolSchemas();
    for (const [name, value] of schemas) before.set(name, snapshot(value));
    daemon = await startHarness();
    gateway = await startTestGateway();
  });
  afterAll(async () => {
    await daemon?.stop();
    await gateway?.stop();
  });

  test("the walk finds the protocol's schemas", () => {
    expect(schemas.size).toBeGreaterThan(40);
    expect(schemas.has("src/protocol/sync-shapes.ts SyncStatusRecord")).toBe(true);
  });

  test("serving and compiling the daemon's and the gateway's routes leaves every exported schema unchanged", async () => {
    // Requests through the real servers: a summary, a read, a body with a field no schema knows.
    expect((await daemon.get("/sync/summary")).status).toBe(200);
    expect((await daemon.get("/sync")).status).toBe(200);
    expect((await daemon.post("/prompt", { input: "hi", not_a_field: 1 })).status).toBe(422);
    const gw = (path: string, init?: RequestInit) => fetch(gateway.url + path, init);
    expect((await gw(OPENAPI_PATH)).status).toBe(200);
    expect((await gw("/api/v1/sessions")).status).toBe(401);
    expect((await gw("/api/v1/oauth/token", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "grant_type=nope" })).status).toBe(401);
    // Every route of both apps, compiled as its first request would; and the two OpenAPI builders.
    const daemonApp = buildDaemonApp(daemon.running.daemon, { logger: { error() {} }, secrets: [] });
    const gatewayApp = buildGatewayApp(gateway.ctx);
    expect(compileEveryRoute(daemonApp)).toBeGreaterThan(15);
    expect(compileEveryRoute(gatewayApp)).toBeGreaterThan(40);
    expect((await daemonApp.handle(new Request("http://localhost/sync/summary"))).status).toBe(200);
    await daemonOpenApiDocument();
    await renderOpenApi(gateway.ctx);

    const changed: string[] = [];
    for (const [name, value] of schemas) differences(before.get(name), snapshot(value), name, changed);
    expect(changed).toEqual([]);
  });

  test("a summary with a field this version does not know still checks against the shared record (the fleet observer's check)", () => {
    const summary = { version: 1, daemon_epoch: "ep", cursor: "c", busy: false, attention: false, history_checkpoint: "", history_total_items: 0 };
    expect(Value.Check(SyncStatusRecord, { ...summary, added_by_a_newer_daemon: true })).toBe(true);
  });
});

describe("why: Elysia writes to the schemas it compiles", () => {
  // If this starts failing, Elysia stopped writing to route schemas and elysia-app.ts's copies could go.
  test("a plain Elysia app sets additionalProperties false on a route's body and response schemas when the route first runs", async () => {
    const body = t.Object({ a: t.String() });
    const response = t.Object({ ok: t.Boolean() });
    const app = new Elysia({ normalize: false }).post("/x", () => ({ ok: true }), { body, response });
    expect("additionalProperties" in body).toBe(false);
    const res = await app.handle(new Request("http://localhost/x", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ a: "1" }) }));
    expect(res.status).toBe(200);
    expect(body.additionalProperties).toBe(false);
    expect(response.additionalProperties).toBe(false);
  });
});

describe("every Elysia instance of src/ comes from util/elysia-app.ts", () => {
  test("no other file calls new Elysia(", () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/\.tsx?$/.test(entry.name) && path !== join(root, "src/util/elysia-app.ts") && readFileSync(path, "utf8").includes("new Elysia(")) offenders.push(relative(root, path));
      }
    };
    walk(join(root, "src"));
    walk(join(root, "tui"));
    expect(offenders).toEqual([]);
  });
});
