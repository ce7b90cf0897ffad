// Turns from an editor's side of the protocol (the SDK's client): a permission round trip mapped onto
// our questions, cancel mid-turn (a running tool, and a question still open), and a daemon that dies
// mid-turn under the session.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runningWithArg } from "../helpers/processes.ts";
import { agentText, startEditor, stopDaemons, world, type Editor } from "./editor.ts";

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

const updatesOf = (e: Editor) => e.updates.map((n) => n.update);

/** Polls a condition another process brings about; the bound only matters when it never comes. */
async function waitUntil(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  for (const deadline = Date.now() + ms; !check(); await Bun.sleep(50)) {
    if (Date.now() > deadline) throw new Error(`gave up after ${ms / 1000} s waiting for ${what}`);
  }
}

describe("agent acp: permissions", () => {
  test("a question becomes session/request_permission on the tool call; allow once runs it, reject denies it", async () => {
    const w = setup(`responses:
  - text: "Running it."
    tool_calls:
      - { name: shell, arguments: { command: "echo acp-ok" } }
  - text: "Ran it."
  - text: "Trying again."
    tool_calls:
      - { name: shell, arguments: { command: "echo acp-again" } }
  - text: "It was refused."
`);
    const answers = ["allow_once", "deny"];
    const e = await startEditor(w, { answer: () => ({ outcome: { outcome: "selected", optionId: answers.shift()! } }) });
    editors.push(e);
    const { sessionId } = await e.ctx.request("session/new", { cwd: w.project, mcpServers: [] });
    expect((await e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run it" }] })).stopReason).toBe("end_turn");
    const asked = e.permissions[0]!;
    expect(asked.options.map((o) => [o.optionId, o.kind])).toEqual([
      ["allow_once", "allow_once"],
      ["allow_always_session", "allow_always"],
      ["allow_always_project", "allow_always"],
      ["deny", "reject_once"],
    ]);
    expect(asked.toolCall).toMatchObject({ kind: "execute", title: "echo acp-ok", rawInput: { command: "echo acp-ok" } });
    const call = updatesOf(e).find((u) => u.sessionUpdate === "tool_call");
    expect(call && "toolCallId" in call ? call.toolCallId : "").toBe(asked.toolCall.toolCallId);
    const done = updatesOf(e).find((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
    expect(JSON.stringify(done)).toContain("acp-ok");
    expect((await e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] })).stopReason).toBe("end_turn");
    expect(e.permissions).toHaveLength(2);
    const refused = updatesOf(e).find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === e.permissions[1]!.toolCall.toolCallId && u.status === "failed");
    expect(JSON.stringify(refused)).toContain("denied");
    expect(agentText(e.updates)).toBe("Running it.Ran it.Trying again.It was refused.");
  });

  test("always allow in this project writes the rule: the next call is not asked", async () => {
    const w = setup(`responses:
  - tool_calls:
      - { name: shell, arguments: { command: "echo first" } }
  - text: "One."
  - tool_calls:
      - { name: shell, arguments: { command: "echo first" } }
  - text: "Two."
`);
    const e = await startEditor(w, { answer: () => ({ outcome: { outcome: "selected", optionId: "allow_always_project" } }) });
    editors.push(e);
    const { sessionId } = await e.ctx.request("session/new", { cwd: w.project, mcpServers: [] });
    await e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "one" }] });
    await e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "two" }] });
    expect(e.permissions).toHaveLength(1);
    expect(readFileSync(join(w.project, ".agent", "permissions.yaml"), "utf8")).toContain("echo first");
    expect(agentText(e.updates)).toBe("One.Two.");
  });
});

describe("agent acp: cancel", () => {
  test("session/cancel mid-tool ends the prompt as cancelled and kills the command; the session goes on", async () => {
    // A duration no other process sleeps for: the sleep is found in /proc by its argument.
    const duration = `600.${Date.now() % 1_000_000}`;
    const w = setup(
      `responses:
  - text: "Sleeping."
    tool_calls:
      - { name: shell, arguments: { command: "sleep ${duration}" } }
  - text: "Awake again."
`,
      "allow:\n  - shell(sleep:*)\n",
    );
    const e = await startEditor(w);
    editors.push(e);
    const { sessionId } = await e.ctx.request("session/new", { cwd: w.project, mcpServers: [] });
    const answer = e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "sleep" }] });
    await e.waitFor((n) => n.update.sessionUpdate === "tool_call_update" && n.update.status === "in_progress");
    await waitUntil(() => runningWithArg(duration).length > 0, "the sleep to start");
    await e.ctx.notify("session/cancel", { sessionId });
    // Without the cancel the prompt would wait the full 600 s of the sleep.
    expect((await answer).stopReason).toBe("cancelled");
    const failed = await e.waitFor((n) => n.update.sessionUpdate === "tool_call_update" && n.update.status === "failed");
    expect(JSON.stringify(failed)).toContain("cancelled: the command and its shell were killed");
    await waitUntil(() => runningWithArg(duration).length === 0, "the cancelled sleep to be killed");
    expect((await e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "wake up" }] })).stopReason).toBe("end_turn");
    expect(agentText(e.updates)).toBe("Sleeping.Awake again.");
  });

  test("session/cancel while a question is open withdraws it: the editor's request ends cancelled", async () => {
    const w = setup(`responses:
  - tool_calls:
      - { name: shell, arguments: { command: "echo never" } }
  - text: "After."
`);
    let aborted = false;
    const e = await startEditor(w, {
      answer: (_req, signal) =>
        new Promise((resolve) =>
          signal.addEventListener("abort", () => {
            aborted = true;
            resolve({ outcome: { outcome: "cancelled" } });
          }),
        ),
    });
    editors.push(e);
    const { sessionId } = await e.ctx.request("session/new", { cwd: w.project, mcpServers: [] });
    const answer = e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "ask me" }] });
    await e.waitForPermission();
    await e.ctx.notify("session/cancel", { sessionId });
    expect((await answer).stopReason).toBe("cancelled");
    expect(aborted).toBe(true);
  });
});

describe("agent acp: the daemon restarts mid-session", () => {
  test("a daemon killed mid-turn: the prompt fails with the reason, the daemon comes back, the session goes on without repeats", async () => {
    const w = setup(
      `responses:
  - text: "Sleeping."
    tool_calls:
      - { name: shell, arguments: { command: "sleep 30" } }
  - text: "Back."
`,
      "allow:\n  - shell(sleep:*)\n",
    );
    const e = await startEditor(w);
    editors.push(e);
    const { sessionId } = await e.ctx.request("session/new", { cwd: w.project, mcpServers: [] });
    const dir = join(w.env.XDG_DATA_HOME!, "agent", "sessions", sessionId);
    const first = JSON.parse(readFileSync(join(dir, "daemon.json"), "utf8")) as { pid: number; epoch: string };
    const answer = e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "sleep" }] }).then(
      (r) => ({ ok: true as const, r }),
      (error: Error) => ({ ok: false as const, error }),
    );
    await e.waitFor((n) => n.update.sessionUpdate === "tool_call_update" && n.update.status === "in_progress");
    process.kill(first.pid, "SIGKILL");
    const settled = await answer;
    expect(settled.ok).toBe(false);
    if (!settled.ok) expect(settled.error.message).toMatch(/restart|interrupt|daemon/i);
    const second = JSON.parse(readFileSync(join(dir, "daemon.json"), "utf8")) as { pid: number; epoch: string };
    expect(second.epoch).not.toBe(first.epoch);
    expect((await e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] })).stopReason).toBe("end_turn");
    // The new epoch's replay is not shown twice.
    expect(agentText(e.updates)).toBe("Sleeping.Back.");
    expect(updatesOf(e).filter((u) => u.sessionUpdate === "tool_call")).toHaveLength(1);
  }, 60_000);
});
