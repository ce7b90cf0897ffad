// `agent acp` seen from an editor (the SDK's client side): a new session streams its turn as message and
// thought chunks, a plan from the progress tool, and a tool call with kind, location and diff; the
// session is an ordinary one (`agent sessions list`) and comes back with session/load.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { agentText, startEditor, stopDaemons, world, type Editor } from "./editor.ts";

const SCRIPT = `responses:
  - reasoning: "Thinking it over."
    text: "Writing it."
    tool_calls:
      - { name: progress_update, arguments: { text: "Writing the file" } }
      - { name: write, arguments: { path: out.txt, content: "made by acp\\n" } }
  - text: "Wrote out.txt."
  - text: "Second answer."
`;

const w = world({ script: SCRIPT, permissions: "allow:\n  - write(out.txt)\n" });
const editors: Editor[] = [];
afterAll(async () => {
  for (const e of editors) await e.close();
  stopDaemons(w);
});

describe("agent acp: a session from an editor", () => {
  let sessionId = "";

  test("initialize advertises loadSession and the prompt content types", async () => {
    const e = await startEditor(w);
    editors.push(e);
    const init = await e.ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    expect(init.protocolVersion).toBe(1);
    expect(init.agentCapabilities?.loadSession).toBe(true);
    expect(init.agentCapabilities?.promptCapabilities).toEqual({ image: true, audio: false, embeddedContext: true });
    expect(init.agentInfo?.name).toBe("agent");
  });

  test("a prompt streams chunks, a plan and an edit tool call with its diff, then ends the turn", async () => {
    const e = editors[0]!;
    const created = await e.ctx.request("session/new", { cwd: w.project, mcpServers: [] });
    sessionId = created.sessionId;
    expect(sessionId).toMatch(/^ses_/);
    expect(created.modes?.currentModeId).toBeTruthy();
    expect(created.modes?.availableModes.map((m) => m.id)).toContain("plan");
    expect(created.configOptions?.[0]).toMatchObject({ id: "model", category: "model", type: "select" });
    const answer = await e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write the file" }] });
    expect(answer.stopReason).toBe("end_turn");
    await e.waitFor((n) => n.update.sessionUpdate === "agent_message_chunk" && agentText(e.updates).includes("Wrote out.txt."));
    expect(agentText(e.updates)).toBe("Writing it.Wrote out.txt.");
    expect(agentText(e.updates, "agent_thought_chunk")).toBe("Thinking it over.");
    const plans = e.updates.map((n) => n.update).filter((u) => u.sessionUpdate === "plan");
    expect(plans.at(0)).toMatchObject({ entries: [{ content: "Writing the file", status: "in_progress" }] });
    expect(plans.at(-1)).toMatchObject({ entries: [{ content: "Writing the file", status: "completed" }] });
    const call = e.updates.map((n) => n.update).find((u) => u.sessionUpdate === "tool_call_update" && u.kind === "edit");
    expect(call).toMatchObject({ title: "Write out.txt", locations: [{ path: join(w.project, "out.txt") }], rawInput: { path: "out.txt" } });
    const done = e.updates.map((n) => n.update).find((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
    expect(done).toMatchObject({ toolCallId: call!.sessionUpdate === "tool_call_update" ? call!.toolCallId : "", content: [{ type: "diff", path: join(w.project, "out.txt"), oldText: null, newText: "made by acp\n" }, { type: "content" }] });
    // The editor's own prompt is not echoed back to it.
    expect(e.updates.some((n) => n.update.sessionUpdate === "user_message_chunk")).toBe(false);
    expect(readFileSync(join(w.project, "out.txt"), "utf8")).toBe("made by acp\n");
  });

  test("the session is an ordinary session: agent sessions list shows it running", () => {
    const r = w.agent(["sessions", "list", "--json"]);
    expect(r.code).toBe(0);
    const rows = r.stdout.trim().split("\n").map((line) => JSON.parse(line) as { id: string; state: string; title: string | null; project: string });
    expect(rows.find((s) => s.id === sessionId)).toMatchObject({ state: "running", title: "write the file", project: w.project });
    expect(w.agent(["sessions", "list"]).stdout).toContain(sessionId);
  });

  test("after the editor closes, session/load in a new editor replays the history", async () => {
    await editors[0]!.close();
    const e = await startEditor(w);
    editors.push(e);
    const loaded = await e.ctx.request("session/load", { sessionId, cwd: w.project, mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBeTruthy();
    // Everything replayed arrives before the load answer.
    const kinds = e.updates.map((n) => n.update.sessionUpdate);
    expect(kinds[0]).toBe("user_message_chunk");
    expect(agentText(e.updates, "user_message_chunk")).toBe("write the file");
    expect(agentText(e.updates)).toBe("Writing it.Wrote out.txt.");
    expect(kinds).toContain("tool_call");
    const answer = await e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] });
    expect(answer.stopReason).toBe("end_turn");
    await e.waitFor(() => agentText(e.updates).endsWith("Second answer."));
  });

  test("session/list names the project's sessions", async () => {
    const e = editors.at(-1)!;
    const list = await e.ctx.request("session/list", { cwd: w.project });
    expect(list.sessions.map((s) => s.sessionId)).toContain(sessionId);
    expect(list.sessions[0]!.cwd).toBe(w.project);
  });
});
