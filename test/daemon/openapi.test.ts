// The daemon's response contract: `agent print daemon-openapi` is a valid OpenAPI 3.1 document (checked by
// @apidevtools/swagger-parser, not by the code that made it) covering every route, and what a real daemon
// answers on each route (successes, stored failures, validation errors) validates under ajv against the
// document's own response schemas.
import { afterEach, describe, expect, test } from "bun:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { runCli } from "../../src/cli/run.ts";
import { captureIo } from "../helpers/io.ts";
import { startHarness, type Harness } from "./harness.ts";

type Operation = { responses: Record<string, { content?: Record<string, { schema: object }> }> };
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>> };

async function printed(): Promise<Doc> {
  const io = captureIo({});
  expect(await runCli(["print", "daemon-openapi", "--format", "json"], io)).toBe(0);
  return JSON.parse(io.stdout) as Doc;
}

const ROUTES = [
  "get /health",
  "get /sync",
  "get /sync/summary",
  "get /events",
  "get /daemon-state",
  "post /daemon-state/reload",
  "post /prompt",
  "post /queue/dequeue-newest",
  "post /interrogatives/{id}/response",
  "get /commands",
  "post /commands/{name}",
  "post /interrupt",
  "post /session/stop",
  "post /session/fork",
  "get /session/export",
  "get /history",
  "get /history/attachments/{artifact_id}",
  "get /feedback/artifacts",
  "get /feedback/artifacts/{id}",
];

let h: Harness | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
});

describe("agent print daemon-openapi", () => {
  test("is a valid OpenAPI 3.1 document with every route, each with a success and an error response schema", async () => {
    const doc = await printed();
    expect(doc.openapi).toMatch(/^3\.1\./);
    await SwaggerParser.validate(structuredClone(doc) as never);
    const routes = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`));
    expect(routes.sort()).toEqual([...ROUTES].sort());
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const statuses = Object.keys(op.responses);
        expect(statuses.some((s) => s.startsWith("2")), `${method} ${path}: a success response`).toBe(true);
        expect(op.responses["401"]?.content?.["application/json"]?.schema, `${method} ${path}: the 401 body`).toBeDefined();
      }
    }
    const yaml = captureIo({});
    expect(await runCli(["print", "daemon-openapi", "--format", "yaml"], yaml)).toBe(0);
    expect(yaml.stdout).toMatch(/^openapi: 3\.1\./m);
  });
});

describe("a real daemon's answers fit the document", () => {
  test("every JSON route, its successes and its errors", async () => {
    const doc = await printed();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const checked: string[] = [];
    const fits = async (method: "get" | "post", path: string, route: string, res: Response) => {
      const body = (await res.json()) as Record<string, any>;
      // A 500 fits the document too; here it means a response broke its schema (or a handler failed).
      if (res.status === 500) throw new Error(`${method} ${path}: 500 ${JSON.stringify(body)}`);
      const schema = doc.paths[route]?.[method]?.responses[String(res.status)]?.content?.["application/json"]?.schema;
      if (!schema) throw new Error(`${method} ${route}: status ${res.status} is not in the document (${JSON.stringify(body)})`);
      const validate = ajv.compile(schema);
      if (!validate(body)) throw new Error(`${method} ${path} ${res.status}: ${JSON.stringify(validate.errors)} in ${JSON.stringify(body).slice(0, 400)}`);
      checked.push(`${method} ${route} ${res.status}`);
      return body;
    };
    h = await startHarness();
    const get = async (path: string, route = path) => fits("get", path, route, await h!.get(path));
    const post = async (path: string, body: unknown, route = path) => fits("post", path, route, await h!.post(path, body));

    await get("/health");
    const snap = await get("/sync");
    await get("/sync/summary");
    await get("/daemon-state");
    await post("/daemon-state/reload", undefined);
    await get("/commands");
    const context = () => ({ daemon_epoch: snap.daemon_epoch, window: snap.operation_window.window, operation: crypto.randomUUID() });

    await post("/prompt", { text: "ASK before listing", operation_context: context() });
    await post("/prompt", { text: "queued behind the question" });
    await post("/prompt", { text: "refused while busy", when_busy: "reject", operation_context: context() });
    await post("/prompt", { text: "" });
    await post("/queue/dequeue-newest", { operation_context: context() });
    await post("/queue/dequeue-newest", {});
    const question = (await get("/sync")).turn.pending_interrogatives[0];
    expect(question).toBeDefined();
    await post(`/interrogatives/${question.id}/response`, { answer: { decision: "allow_once" }, operation_context: context() }, "/interrogatives/{id}/response");
    await post(`/interrogatives/${question.id}/response`, { answer: { decision: "allow_once" } }, "/interrogatives/{id}/response");
    await post("/commands/echo", { args: ["hi"], operation_context: context() }, "/commands/{name}");
    await post("/commands/nope", {}, "/commands/{name}");
    await post("/interrupt", undefined);
    await get("/history");
    await h.engine().idle();
    await post("/session/stop", {});

    const page = await get("/history");
    await get(`/history?checkpoint=${encodeURIComponent(page.checkpoint)}&page=forged`, "/history");
    await get(`/history/attachments/none?checkpoint=${encodeURIComponent(page.checkpoint)}`, "/history/attachments/{artifact_id}");
    await get("/feedback/artifacts");
    await get("/feedback/artifacts/session-meta", "/feedback/artifacts/{id}");

    const statuses = new Set(checked.map((c) => c.split(" ").pop()));
    for (const s of ["200", "202", "400", "404", "409", "422"]) expect(statuses).toContain(s);
  });
});
