// An answer that breaks its own response schema is the gateway's fault: 500 with the JSON error envelope and
// one structured log line without the answer's values; a request that breaks its route's schema (body, query)
// is still the client's: 422 validation_failed. Over HTTP, with a route group mounted as later parts mount theirs.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { t } from "elysia";
import { elysiaApp } from "../../src/util/elysia-app.ts";
import { startTestGateway, type TestGateway } from "./helpers.ts";

const LEAKY = "pat_abcdefghijklmnopqrstuvwxyz0123456789";
const Count = t.Object({ count: t.Integer() });

const probes = () =>
  elysiaApp()
    // Wrong type where the schema says integer, and a field the schema does not allow (a token, at that).
    .get("/api/v1/probe/broken-answer", () => ({ count: "three", leaked: LEAKY }) as unknown as { count: number }, { response: { 200: Count } })
    .post("/api/v1/probe/echo", ({ body }) => ({ count: body.count }), { body: Count, response: { 200: Count } })
    .get("/api/v1/probe/page", ({ query }) => ({ count: query.n }), { query: t.Object({ n: t.Numeric() }), response: { 200: Count } });

let gw: TestGateway;
let pat: string;
const events: Record<string, unknown>[] = [];
const lines: string[] = [];
beforeAll(async () => {
  gw = await startTestGateway("", {
    groups: [probes],
    logger: { info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m), event: (level, event, fields) => events.push({ level, event, ...fields }) },
  });
  pat = (await gw.ctx.pats.create((await gw.ctx.principals.create("prober")).id, "probe")).token;
});
afterAll(() => gw.stop());

const get = (path: string) => fetch(`${gw.url}${path}`, { headers: { Authorization: `Bearer ${pat}` } });
const post = (path: string, body: unknown) => fetch(`${gw.url}${path}`, { method: "POST", headers: { Authorization: `Bearer ${pat}`, "Content-Type": "application/json" }, body: JSON.stringify(body) });

test("a handler's answer that fails its response schema is a 500 with the request id, logged once without the answer's values", async () => {
  events.length = 0;
  const res = await get("/api/v1/probe/broken-answer");
  expect(res.status).toBe(500);
  expect(res.headers.get("content-type")).toStartWith("application/json");
  const body = (await res.json()) as { error: string; request_id: string };
  expect(body).toEqual({ error: "internal_error", request_id: expect.stringMatching(/^req_/) });
  expect(events).toHaveLength(1);
  expect(events[0]).toMatchObject({ level: "error", event: "http.response_schema_violation", request_id: body.request_id, method: "GET", path: "/api/v1/probe/broken-answer" });
  expect(events[0]!.checks).toBe("/leaked: Unexpected property; /count: Expected union value");
  const logged = JSON.stringify(events) + lines.join("\n");
  expect(logged).not.toContain("three");
  expect(logged).not.toContain(LEAKY);
});

test("a request body or query that fails its route's schema stays a 422 naming the field, and logs nothing", async () => {
  events.length = 0;
  lines.length = 0;
  const bad = await post("/api/v1/probe/echo", { count: "many" });
  expect(bad.status).toBe(422);
  const body = (await bad.json()) as { error: string; errors: { path: string; message: string }[] };
  expect(body.error).toBe("validation_failed");
  expect(body.errors.map((e) => e.path)).toContain("/count");
  const query = await get("/api/v1/probe/page?n=lots");
  expect(query.status).toBe(422);
  expect(((await query.json()) as { error: string }).error).toBe("validation_failed");
  expect(events).toEqual([]);
  expect(lines).toEqual([]);

  // The same routes answer 200 when both sides keep to their schemas.
  expect(await (await post("/api/v1/probe/echo", { count: 3 })).json()).toEqual({ count: 3 });
  expect(await (await get("/api/v1/probe/page?n=4")).json()).toEqual({ count: 4 });
});

test("a 422 names the field and what was expected, never the value sent", async () => {
  const bad = await post("/api/v1/probe/echo", { count: LEAKY });
  expect(bad.status).toBe(422);
  const text = await bad.text();
  expect(text).not.toContain(LEAKY);
  expect(JSON.parse(text)).toMatchObject({ error: "validation_failed", errors: expect.arrayContaining([{ path: "/count", message: expect.stringContaining("'count'") }]) });
});
