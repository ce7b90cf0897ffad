// ACP sessions are ordinary sessions, seen from the editor (the SDK's client): one made by `agent exec`
// comes back with session/load; a second client of the daemon protocol (what the TUI speaks) works in
// the same session at the same time; facets are modes; prompts carry resources and images; the
// editor's MCP servers join the session's tool servers.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DaemonClient } from "../../src/client/daemon-client.ts";
import { agentText, ROOT, startEditor, stopDaemons, world, type Editor } from "./editor.ts";

const editors: Editor[] = [];
const worlds: ReturnType<typeof world>[] = [];
afterAll(async () => {
  for (const e of editors) await e.close();
  for (const w of worlds) stopDaemons(w);
});

function setup(script: string, permissions?: string) {
  const w = world({ script, permissions });
  worlds.push(w);
  return w;
}

async function editor(w: ReturnType<typeof world>, options: Parameters<typeof startEditor>[1] = {}) {
  const e = await startEditor(w, options);
  editors.push(e);
  return e;
}

/** Another client of the session's daemon, as the TUI is one: the daemon protocol with the session's credential. */
function terminalClient(w: ReturnType<typeof world>, sessionId: string): DaemonClient {
  const dir = join(w.env.XDG_DATA_HOME!, "agent", "sessions", sessionId);
  const read = () => ({ port: (JSON.parse(readFileSync(join(dir, "daemon.json"), "utf8")) as { port: number }).port, token: (JSON.parse(readFileSync(join(dir, "credential.json"), "utf8")) as { token: string }).token });
  return new DaemonClient({ url: () => `http://127.0.0.1:${read().port}`, token: async () => read().token });
}

describe("agent acp: sessions shared with the other clients", () => {
  test("a session agent exec made comes back with session/load (history replayed), and a prompt continues it", async () => {
    const w = setup(`responses:
  - text: "Looking around."
    tool_calls:
      - { name: glob, arguments: { pattern: "*" } }
  - text: "Found the project."
  - text: "Continued in the editor."
`);
    const exec = w.agent(["exec", "--json", "look around"]);
    expect(exec.code).toBe(0);
    const sessionId = (JSON.parse(exec.stdout.split("\n")[0]!) as { session_id: string }).session_id;
    const e = await editor(w);
    await e.ctx.request("session/load", { sessionId, cwd: w.project, mcpServers: [] });
    expect(agentText(e.updates, "user_message_chunk")).toBe("look around");
    expect(agentText(e.updates)).toBe("Looking around.Found the project.");
    expect(e.updates.map((n) => n.update).find((u) => u.sessionUpdate === "tool_call")).toMatchObject({ kind: "search", status: "pending" });
    expect(e.updates.map((n) => n.update).find((u) => u.sessionUpdate === "tool_call_update" && u.title)).toMatchObject({ kind: "search", title: "Find *", rawInput: { pattern: "*" } });
    expect(e.updates.map((n) => n.update).find((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed")).toBeDefined();
    const replayed = e.updates.length;
    expect((await e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go on" }] })).stopReason).toBe("end_turn");
    expect(agentText(e.updates.slice(replayed))).toBe("Continued in the editor.");
    const row = w.agent(["sessions", "list", "--json"]).stdout.trim().split("\n").map((l) => JSON.parse(l) as { id: string; state: string }).find((s) => s.id === sessionId);
    expect(row?.state).toBe("running");
  });

  test("a session started in the terminal (agent new, the TUI's path) loads in the editor while its daemon runs", async () => {
    const w = setup(`responses:\n  - text: "Answered in the terminal."\n  - text: "Answered in the editor."\n`);
    const started = w.agent(["new", "--detach", "start here"]);
    expect(started.code).toBe(0);
    const sessionId = started.stdout.trim();
    // The prompt was admitted before the id was printed; its turn may still run while the editor loads.
    const e = await editor(w);
    await e.ctx.request("session/load", { sessionId, cwd: w.project, mcpServers: [] });
    expect(agentText(e.updates, "user_message_chunk")).toBe("start here");
    await e.waitFor(() => agentText(e.updates) === "Answered in the terminal.");
    expect((await e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "and here" }] })).stopReason).toBe("end_turn");
    expect(agentText(e.updates)).toBe("Answered in the terminal.Answered in the editor.");
  });

  test("a terminal client prompts the same session at the same time: the editor sees its prompt and answer, and a question answered there leaves the editor", async () => {
    const w = setup(`responses:
  - text: "Hello editor."
  - text: "Hello terminal."
  - tool_calls:
      - { name: shell, arguments: { command: "echo shared" } }
  - text: "Allowed from the terminal."
`);
    let editorAsked!: () => void;
    const asked = new Promise<void>((r) => (editorAsked = r));
    let withdrawn = false;
    const e = await editor(w, {
      answer: (_req, signal) => {
        editorAsked();
        return new Promise((resolve) => signal.addEventListener("abort", () => ((withdrawn = true), resolve({ outcome: { outcome: "cancelled" } }))));
      },
    });
    const { sessionId } = await e.ctx.request("session/new", { cwd: w.project, mcpServers: [] });
    await e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
    const terminal = terminalClient(w, sessionId);
    await terminal.prompt("hi from the terminal");
    await e.waitFor(() => agentText(e.updates).endsWith("Hello terminal."));
    expect(agentText(e.updates, "user_message_chunk")).toBe("hi from the terminal");
    // The terminal's turn asks; the editor is asked too; the terminal answers first.
    await terminal.prompt("run it");
    await asked;
    const snap = await terminal.sync();
    const question = snap.turn.pending_interrogatives[0]!;
    await terminal.answer(question.id, { decision: "allow_once" });
    await e.waitFor(() => agentText(e.updates).endsWith("Allowed from the terminal."));
    expect(withdrawn).toBe(true);
  });

  test("facets are modes: session/set_mode switches the facet and the session says so", async () => {
    const w = setup(`responses:\n  - text: "Planned."\n`);
    const e = await editor(w);
    const created = await e.ctx.request("session/new", { cwd: w.project, mcpServers: [] });
    expect(created.modes?.currentModeId).not.toBe("plan");
    await e.ctx.request("session/set_mode", { sessionId: created.sessionId, modeId: "plan" });
    await e.waitFor((n) => n.update.sessionUpdate === "current_mode_update" && n.update.currentModeId === "plan");
    const terminal = terminalClient(w, created.sessionId);
    expect((await terminal.sync()).active?.facet).toBe("plan");
    const bad = await e.ctx.request("session/set_mode", { sessionId: created.sessionId, modeId: "no-such-facet" }).then(() => null, (error: Error) => error);
    expect(bad?.message).toContain("no-such-facet");
  });

  test("a prompt with a resource link, an embedded resource and an image reaches the session whole", async () => {
    const w = setup(`responses:\n  - text: "Seen."\n`);
    const e = await editor(w);
    const { sessionId } = await e.ctx.request("session/new", { cwd: w.project, mcpServers: [] });
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    await e.ctx.request("session/prompt", {
      sessionId,
      prompt: [
        { type: "text", text: "look at these" },
        { type: "resource_link", name: "main.ts", uri: `file://${w.project}/main.ts` },
        { type: "resource", resource: { uri: `file://${w.project}/notes.md`, text: "unsaved notes", mimeType: "text/markdown" } },
        { type: "image", mimeType: "image/png", data: png },
      ],
    });
    const other = await editor(w);
    await other.ctx.request("session/load", { sessionId, cwd: w.project, mcpServers: [] });
    const said = agentText(other.updates, "user_message_chunk");
    expect(said).toContain("look at these");
    expect(said).toContain(`(file ${w.project}/main.ts)`);
    expect(said).toContain(`<context uri="file://${w.project}/notes.md">\nunsaved notes\n</context>`);
    expect(other.updates.map((n) => n.update).find((u) => u.sessionUpdate === "user_message_chunk" && u.content.type === "image")).toMatchObject({ content: { type: "image", mimeType: "image/png", data: png } });
    const audio = await e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "audio", mimeType: "audio/wav", data: "AAAA" }] }).then(() => null, (error: Error) => error);
    expect(audio?.message).toContain("audio");
  });

  test("the editor's MCP servers join the session's tool servers", async () => {
    const w = setup(`responses:\n  - text: "unused"\n`);
    const e = await editor(w);
    const bin = resolve(ROOT, "node_modules", ".bin", "mcp-server-everything");
    const { sessionId } = await e.ctx.request("session/new", {
      cwd: w.project,
      mcpServers: [{ name: "every thing", command: Bun.which("node")!, args: [bin, "stdio"], env: [{ name: "EDITOR_TOKEN", value: "t0ken-value" }] }],
    });
    const terminal = terminalClient(w, sessionId);
    let state = "";
    for (let i = 0; i < 100 && state !== "connected"; i++) {
      const catalog = await terminal.json<{ mcp_servers: { name: string; state: string; tool_count: number }[] }>("GET", "/daemon-state");
      state = catalog.mcp_servers.find((s) => s.name === "every-thing")?.state ?? "";
      if (state !== "connected") await Bun.sleep(100);
    }
    expect(state).toBe("connected");
    // The editor's `/mcp` runs the session command.
    const answer = await e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/mcp" }] });
    expect(answer.stopReason).toBe("end_turn");
    await e.waitFor(() => agentText(e.updates).includes("every-thing: connected"));
  }, 30_000);
});
