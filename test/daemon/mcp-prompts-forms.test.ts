// A real session (config-built engine) with the everything server: its prompts are slash commands
// (listed by GET /commands, run by POST /commands/mcp__ev__<prompt>, sent as the user's prompt), `/mcp
// resources` lists what `@server:uri` can name, and a server's request for input (elicitation) travels to
// the client as an interrogative and the answer back to the server.
import { afterEach, describe, expect, test } from "bun:test";
import { configuredEngine } from "../../src/cli/daemon-run.ts";
import { startDaemon, type RunningDaemon } from "../../src/daemon/serve.ts";
import { makeProject, scriptedConfig } from "../agent/harness.ts";
import { EVERYTHING_BIN } from "../mcp/helpers.ts";
import { TOKEN, tempSessionDir } from "./harness.ts";

let running: RunningDaemon | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

const auth = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" };
const SERVER = `mcp_servers:\n  ev: { transport: stdio, command: "${EVERYTHING_BIN}", args: [stdio], pass_env: [PATH] }\n`;

async function start(script: string): Promise<RunningDaemon> {
  const p = makeProject(scriptedConfig(SERVER), { "script.yaml": script });
  const { engineFactory, reload } = configuredEngine(p.env, false, { untrusted: "keep" });
  running = await startDaemon({ sessionDir: tempSessionDir(), project: p.root, credential: TOKEN, engineFactory, reloadCatalog: reload, limits: { heartbeatMs: 0 } });
  return running;
}

/** Follows the journal from its origin; `until` waits for a record the predicate picks. */
async function follow(d: RunningDaemon) {
  const snap = await (await fetch(`${d.url}/sync`, { headers: auth })).json();
  const res = await fetch(`${d.url}/events?after=${encodeURIComponent(snap.origin_cursor)}`, { headers: auth });
  const reader = res.body!.getReader();
  const records: Record<string, any>[] = [];
  let buffer = "";
  return {
    records,
    async until(what: string, pick: (r: Record<string, any>) => boolean, ms = 20_000): Promise<Record<string, any>> {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = records.find(pick);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no record: ${what}; saw ${records.map((r) => r.type).join(", ")}`);
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended before ${what}`);
        buffer += new TextDecoder().decode(value);
        let at: number;
        while ((at = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          if (!/^event: records$/m.test(block)) continue;
          const data = block.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("");
          records.push(...JSON.parse(data).records);
        }
      }
    },
    close: () => reader.cancel().catch(() => {}),
  };
}

async function commands(d: RunningDaemon): Promise<{ name: string; usage: string; summary: string }[]> {
  for (let i = 0; i < 300; i++) {
    const list = (await (await fetch(`${d.url}/commands`, { headers: auth })).json()).commands;
    if (list.some((c: { name: string }) => c.name.startsWith("mcp__ev__"))) return list;
    await Bun.sleep(50);
  }
  throw new Error("the server's prompts never joined the commands");
}

const post = (d: RunningDaemon, path: string, body: unknown) => fetch(`${d.url}${path}`, { method: "POST", headers: auth, body: JSON.stringify(body) });

describe("tool servers' prompts, resources and forms in a session", () => {
  test("a prompt is a slash command: listed with its description, its arguments by name or position, sent as the user's prompt", async () => {
    const d = await start("responses:\n  - text: sunny\n  - text: fine\n");
    const list = await commands(d);
    expect(list.find((c) => c.name === "mcp__ev__args-prompt")).toEqual({ name: "mcp__ev__args-prompt", usage: "/mcp__ev__args-prompt <city> [state]", summary: expect.stringContaining("A prompt with two arguments") });
    expect(list.find((c) => c.name === "mcp__ev__simple-prompt")?.summary).toBe("A prompt with no arguments");

    const missing = await post(d, "/commands/mcp__ev__args-prompt", { args: [] });
    expect(missing.status).toBe(422);
    expect((await missing.json()).message).toContain("missing city; usage: /mcp__ev__args-prompt <city> [state]");

    const journal = await follow(d);
    const ran = await post(d, "/commands/mcp__ev__args-prompt", { args: ["state=Texas", "Austin"] });
    expect(ran.status).toBe(200);
    expect((await ran.json()).message).toBe("sent the prompt args-prompt of ev");
    const asked = await journal.until("the prompt as the user's message", (r) => JSON.stringify(r).includes("What's weather in Austin, Texas?"));
    expect(asked.type).toBe("user_message");
    await journal.until("the turn's answer", (r) => JSON.stringify(r).includes("sunny"));
    // What a client typed may be lowercased; the name still finds the prompt.
    expect((await post(d, "/commands/MCP__EV__simple-prompt", { args: [] })).status).toBe(200);
    await journal.until("the simple prompt", (r) => r.type === "user_message" && JSON.stringify(r).includes("This is a simple prompt without arguments."));
    await journal.close();
  }, 40_000);

  test("/mcp resources lists what @server:uri mentions name", async () => {
    const d = await start("responses:\n  - text: ok\n");
    await commands(d);
    const res = await post(d, "/commands/mcp", { args: ["resources"] });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.data.resources.length).toBeGreaterThan(0);
    const first = body.data.resources.find((r: { name: string }) => r.name === "architecture.md");
    expect(first).toEqual({ server: "ev", uri: "demo://resource/static/document/architecture.md", name: "architecture.md", description: expect.any(String), mime_type: "text/markdown" });
    expect(body.message).toContain("@ev:demo://resource/static/document/architecture.md  architecture.md");
  }, 40_000);

  test("a server's form reaches the client as an interrogative; the answer goes back to the server", async () => {
    const d = await start("responses:\n  - tool_calls:\n      - { name: mcp__ev__trigger-elicitation-request, arguments: {} }\n  - text: thanks\n");
    await commands(d);
    const journal = await follow(d);
    expect((await post(d, "/prompt", { text: "fill the form" })).status).toBe(202);
    const opened = await journal.until("the form", (r) => r.type === "interrogative_opened");
    const q = opened.interrogative;
    expect(q).toMatchObject({ kind: "elicitation", server: "ev", message: "Please provide inputs for the following fields:" });
    expect(q.requested_schema.required).toEqual(["name"]);
    // An answer of the wrong shape is refused; the form stays open.
    expect((await post(d, `/interrogatives/${q.id}/response`, { answer: { decision: "approve" } })).status).toBe(409);
    const answered = await post(d, `/interrogatives/${q.id}/response`, { answer: { decision: "accept", content: { name: "Ada Lovelace", check: true, integer: 7 } } });
    expect(answered.status).toBe(200);
    const result = await journal.until("the tool's result", (r) => JSON.stringify(r).includes("Name: Ada Lovelace"));
    expect(JSON.stringify(result)).toContain("Favorite Integer: 7");
    await journal.close();
  }, 40_000);
});
