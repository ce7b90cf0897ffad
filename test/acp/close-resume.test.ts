// session/close and session/resume from editors (the SDK's client): close ends the editor's part (its
// running prompt answers cancelled, the turn is interrupted, the session is no longer its own) while
// the daemon session goes on; resume reattaches without the history that session/load replays.
import { afterAll, describe, expect, test } from "bun:test";
import { agentText, startEditor, stopDaemons, world, type Editor } from "./editor.ts";

const w = world({
  script: `responses:
  - text: "First answer."
  - text: "Sleeping."
    tool_calls:
      - { name: shell, arguments: { command: "sleep 30" } }
  - text: "Awake again."
  - text: "After the resume."
`,
  permissions: "allow:\n  - shell(sleep:*)\n",
});
const editors: Editor[] = [];
afterAll(async () => {
  for (const e of editors) await e.close();
  stopDaemons(w);
});

const sessionState = (id: string) => {
  const rows = w.agent(["sessions", "list", "--json"]).stdout.trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as { id: string; state: string });
  return rows.find((r) => r.id === id)?.state;
};

describe("agent acp: session/close and session/resume", () => {
  let sessionId = "";

  test("initialize advertises resume and close", async () => {
    const e = await startEditor(w);
    editors.push(e);
    const init = await e.ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    expect(init.agentCapabilities?.sessionCapabilities).toEqual({ list: {}, resume: {}, close: {} });
  });

  test("close mid-turn: the prompt answers cancelled, the turn is interrupted, the session is gone for this editor but keeps running", async () => {
    const a = editors[0]!;
    sessionId = (await a.ctx.request("session/new", { cwd: w.project, mcpServers: [] })).sessionId;
    expect((await a.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "first" }] })).stopReason).toBe("end_turn");
    // A second editor follows the same session and sees what happens to the turn.
    const b = await startEditor(w);
    editors.push(b);
    await b.ctx.request("session/load", { sessionId, cwd: w.project, mcpServers: [] });
    const answer = a.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "sleep" }] });
    await a.waitFor((n) => n.update.sessionUpdate === "tool_call_update" && n.update.status === "in_progress");
    expect(await a.ctx.request("session/close", { sessionId })).toEqual({});
    expect((await answer).stopReason).toBe("cancelled");
    await b.waitFor((n) => n.update.sessionUpdate === "tool_call_update" && n.update.status === "failed");
    const refused = await a.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "still there?" }] }).then(() => null, (error: Error & { code?: number }) => error);
    expect(refused?.code).toBe(-32002);
    expect(sessionState(sessionId)).toBe("running");
    // Closing twice is fine (the SDK treats the second "not found" as done).
    expect(await a.ctx.request("session/close", { sessionId })).toEqual({});
    // The other editor still drives the session.
    expect((await b.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "wake up" }] })).stopReason).toBe("end_turn");
    await b.waitFor(() => agentText(b.updates).endsWith("Awake again."));
  }, 30_000);

  test("resume in a new editor: no history is replayed, the session goes on", async () => {
    for (const e of editors) await e.close();
    w.agent(["sessions", "stop", sessionId]);
    expect(sessionState(sessionId)).not.toBe("running");
    const c = await startEditor(w);
    editors.push(c);
    const resumed = await c.ctx.request("session/resume", { sessionId, cwd: w.project, mcpServers: [] });
    expect(resumed.modes?.currentModeId).toBeTruthy();
    expect(resumed.configOptions?.[0]).toMatchObject({ id: "model" });
    expect(sessionState(sessionId)).toBe("running");
    expect((await c.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "and now" }] })).stopReason).toBe("end_turn");
    // Everything the editor was sent is this turn's (updates go out before the prompt's answer).
    expect(agentText(c.updates)).toBe("After the resume.");
    const kinds = c.updates.map((n) => n.update.sessionUpdate);
    expect(kinds).not.toContain("user_message_chunk");
    expect(kinds).not.toContain("tool_call");
  });

  test("resume of an unknown session: resource not found", async () => {
    const c = editors.at(-1)!;
    const refused = await c.ctx.request("session/resume", { sessionId: "ses_nope", cwd: w.project }).then(() => null, (error: Error & { code?: number }) => error);
    expect(refused?.code).toBe(-32002);
  });
});
