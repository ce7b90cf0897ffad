// The rest of the MCP client against the reference everything server (issue 23 item 6): roots (the
// project directory), elicitation (answered by the session's handler, declined with a notice where nobody
// can answer, as in agent exec), resources (list, templates, read), prompts, and sampling not offered.
import { afterEach, describe, expect, test } from "bun:test";
import { pathToFileURL } from "node:url";
import { createMcpManager, type McpElicitationHandler, type McpManager } from "../../src/mcp/index.ts";
import { EVERYTHING_BIN, runNamed } from "./helpers.ts";

let open: McpManager[] = [];
afterEach(async () => {
  await Promise.all(open.map((m) => m.close()));
  open = [];
});

function everything(extra: { elicit?: McpElicitationHandler; onDeclined?: (server: string, message: string) => void } = {}) {
  const manager = createMcpManager({
    servers: { ev: { transport: "stdio", command: EVERYTHING_BIN, args: ["stdio"], pass_env: ["PATH"] } },
    dataRoot: `${process.env.XDG_DATA_HOME}/agent`,
    clock: { now: () => Date.now() },
    log: () => {},
    cwd: process.cwd(),
    ...extra,
  });
  open.push(manager);
  return manager;
}

describe("roots and sampling", () => {
  test("the server's roots are the project directory; sampling is not offered, so its tool is not registered", async () => {
    const m = everything();
    await m.start();
    const names = m.tools().map((t) => t.name);
    expect(names).toContain("mcp__ev__get-roots-list");
    expect(names).not.toContain("mcp__ev__trigger-sampling-request");
    const result = await runNamed(m, "mcp__ev__get-roots-list", {});
    expect(result.output).toContain(pathToFileURL(process.cwd()).href);
  }, 30_000);
});

describe("elicitation", () => {
  test("a form the user fills in reaches the server, with the schema's defaults for fields left empty", async () => {
    const asked: string[] = [];
    const m = everything({
      elicit: async (request) => {
        asked.push(`${request.server}: ${request.message}`);
        return { action: "accept", content: { name: "Ada", check: true } };
      },
    });
    await m.start();
    const result = await runNamed(m, "mcp__ev__trigger-elicitation-request", {});
    expect(asked).toEqual(["ev: Please provide inputs for the following fields:"]);
    expect(result.output).toContain('"name": "Ada"');
    expect(result.output).toContain('"integer": 42');
  }, 30_000);

  test("without anyone to ask (agent exec) the request is declined and the session is told which server asked", async () => {
    const declined: string[] = [];
    const m = everything({ onDeclined: (server, message) => declined.push(`${server}: ${message}`) });
    await m.start();
    const result = await runNamed(m, "mcp__ev__trigger-elicitation-request", {});
    expect(result.output).toContain("decline");
    expect(declined).toEqual(["ev: Please provide inputs for the following fields:"]);
  }, 30_000);
});

describe("resources and prompts", () => {
  test("resources are listed, with templates, and read", async () => {
    const m = everything();
    await m.start();
    const resources = await m.resources();
    const doc = resources.find((r) => r.uri.startsWith("demo://resource/static/document/"));
    expect(doc).toMatchObject({ server: "ev" });
    const templates = await m.resourceTemplates("ev");
    expect(templates.map((t) => t.uriTemplate)).toContain("demo://resource/dynamic/text/{resourceId}");
    const read = await m.readResource("ev", "demo://resource/dynamic/text/1");
    expect(read.contents[0]).toMatchObject({ uri: "demo://resource/dynamic/text/1" });
    expect((read.contents[0] as { text: string }).text.length).toBeGreaterThan(0);
  }, 30_000);

  test("prompts are listed with their arguments and fetched with values", async () => {
    const m = everything();
    await m.start();
    const prompts = await m.prompts();
    expect(prompts.find((p) => p.name === "args-prompt")).toMatchObject({ server: "ev", arguments: [{ name: "city", required: true }, { name: "state" }] });
    const got = await m.getPrompt("ev", "args-prompt", { city: "Paris" });
    expect(JSON.stringify(got.messages)).toContain("Paris");
  }, 30_000);
});
