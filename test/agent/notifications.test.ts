// Notifications on the scripted provider: with auto_drain_notifications on they enter the conversation
// as they arrive (at once when idle, at the next safe point during a turn: never between a tool call and
// its result); off, they wait for the next turn. trigger_turn has no effect. Undelivered ones survive a resume.
import { describe, expect, test } from "bun:test";
import { createSessionFromConfig } from "../../src/agent/create-session.ts";
import type { ConversationEntry } from "../../src/agent/conversation.ts";
import type { EngineEvent } from "../../src/agent/events.ts";
import { makeProject, probeTool, scriptedConfig, waitFor, type Project } from "./harness.ts";

async function start(p: Project, extra: { initialEvents?: EngineEvent[] } = {}) {
  const probe = probeTool("probe");
  const created = await createSessionFromConfig({ cwd: p.root, env: p.env, interactive: false, extraTools: [probe.tool], untrusted: "keep", ...extra });
  const events: EngineEvent[] = [];
  created.session.subscribe((e) => events.push(e));
  return { ...created, probe, events };
}

/** The conversation as short labels: role/origin, the notification's id. */
function shape(entries: ConversationEntry[]): string[] {
  return entries.map((e) => (e.role === "user" ? `user:${e.origin}` : e.role === "assistant" ? `assistant:${e.content.map((p) => p.type).join("+")}` : "tool_results"));
}

const toolThenText = `responses:\n  - tool_calls:\n      - { name: probe, arguments: { n: 1 } }\n  - text: done\n  - text: second\n  - text: third\n`;

describe("auto_drain_notifications on (default)", () => {
  test("idle: the notification enters the conversation at once, before the next prompt", async () => {
    const p = makeProject(scriptedConfig("notifications: { trigger_turn: true, trigger_types: [mcp] }\n"), { "script.yaml": "responses:\n  - text: noted\n" });
    const s = await start(p);
    const n = s.notifications.notify("mcp:github", "Tool server github is now disconnected; its tools are unavailable.");
    expect(s.events.map((e) => e.type)).toEqual(["notification", "user_message"]);
    expect(s.events[0]).toMatchObject({ delivery: "drained", notification: { id: n.id, source: "mcp:github" } });
    expect(s.session.conversation.entries[0]).toMatchObject({ id: n.id, origin: "notification" });
    expect(JSON.stringify(s.session.conversation.entries[0])).toContain("github is now disconnected");
    // trigger_turn is reserved: the notification started no turn.
    await Bun.sleep(20);
    expect(s.session.busy).toBe(false);
    expect(s.events.some((e) => e.type === "turn_started")).toBe(false);
    s.session.submit({ text: "hello" });
    await s.session.idle();
    expect(shape(s.session.conversation.entries)).toEqual(["user:notification", "user:prompt", "assistant:text"]);
  });

  test("during a turn: recorded at once, in the conversation after the tool result, before the next model request", async () => {
    const p = makeProject(scriptedConfig(), { "script.yaml": toolThenText });
    const s = await start(p);
    s.session.submit({ text: "work" });
    await waitFor(() => s.probe.state.started === 1, "the tool call");
    s.notifications.notify("shell", "background job 7 finished");
    expect(s.events.at(-1)).toMatchObject({ type: "notification", delivery: "drained" });
    s.probe.state.release();
    await s.session.idle();
    expect(shape(s.session.conversation.entries)).toEqual(["user:prompt", "assistant:tool_call", "tool_results", "user:notification", "assistant:text"]);
  });
});

describe("auto_drain_notifications off", () => {
  test("the notification waits for the next turn, even when a request follows in this one", async () => {
    const p = makeProject(scriptedConfig("notifications: { auto_drain_notifications: false }\n"), { "script.yaml": toolThenText });
    const s = await start(p);
    s.notifications.notify("mcp:a", "idle news");
    expect(s.events.map((e) => e.type)).toEqual(["notification"]);
    expect(s.events[0]).toMatchObject({ delivery: "queued" });
    expect(s.session.conversation.entries).toEqual([]);

    s.session.submit({ text: "work" });
    await waitFor(() => s.probe.state.started === 1, "the tool call");
    s.notifications.notify("mcp:a", "mid-turn news");
    s.probe.state.release();
    await s.session.idle();
    // The idle one entered with this turn; the mid-turn one did not join the second request.
    expect(shape(s.session.conversation.entries)).toEqual(["user:prompt", "user:notification", "assistant:tool_call", "tool_results", "assistant:text"]);
    expect(s.notifications.pending.map((n) => n.text)).toEqual(["mid-turn news"]);

    s.session.submit({ text: "next" });
    await s.session.idle();
    expect(shape(s.session.conversation.entries).slice(5)).toEqual(["user:prompt", "user:notification", "assistant:text"]);
    expect(s.notifications.pending).toEqual([]);
  });

  test("a resumed session still delivers what was never delivered", async () => {
    const p = makeProject(scriptedConfig("notifications: { auto_drain_notifications: false }\n"), { "script.yaml": "responses:\n  - text: first\n" });
    const s = await start(p);
    s.notifications.notify("mcp:a", "left over");
    await s.session.close();
    const resumed = await start(p, { initialEvents: s.events });
    expect(resumed.notifications.pending.map((n) => n.text)).toEqual(["left over"]);
    resumed.session.submit({ text: "go" });
    await resumed.session.idle();
    expect(shape(resumed.session.conversation.entries)).toEqual(["user:prompt", "user:notification", "assistant:text"]);
  });
});
