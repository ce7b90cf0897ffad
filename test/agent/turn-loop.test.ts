// The turn loop on the scripted offline provider: files changed on disk, batch limits, lock keys,
// max_tool_turns, exit_tool, unknown tools, disabled tools, queue and interrupt.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { unansweredCalls } from "../../src/agent/conversation.ts";
import { makeProject, probeTool, scriptedConfig, startSession, waitFor } from "./harness.ts";

const calls = (name: string, count: number) => Array.from({ length: count }, (_, i) => `      - { name: ${name}, arguments: { n: ${i} } }`).join("\n");

describe("turn loop", () => {
  test("a multi-tool turn writes and edits files on disk, then answers", async () => {
    const script = `responses:
  - text: "Editing."
    tool_calls:
      - { name: write, arguments: { path: notes/new.txt, content: "fresh\\n" } }
      - { name: edit, arguments: { path: app.txt, old_string: "old value", new_string: "new value" } }
  - text: "Both files are updated."
`;
    const p = makeProject(scriptedConfig(), { "script.yaml": script, "app.txt": "line 1\nold value\n" });
    const r = await startSession(p);
    r.session.submit({ text: "update the files" });
    await r.session.idle();
    expect(readFileSync(join(p.root, "notes/new.txt"), "utf8")).toBe("fresh\n");
    expect(readFileSync(join(p.root, "app.txt"), "utf8")).toBe("line 1\nnew value\n");
    expect(r.of("tool_call_completed").map((e) => [e.result.name, e.result.status])).toEqual([
      ["write", "completed"],
      ["edit", "completed"],
    ]);
    const done = r.of("turn_completed");
    expect(done).toHaveLength(1);
    expect(done[0]!.stop_reason).toBe("end_turn");
    const last = r.session.conversation.entries.at(-1)!;
    expect(last.role === "assistant" && last.content[0]?.type === "text" && last.content[0].text).toBe("Both files are updated.");
    expect(unansweredCalls(r.session.conversation)).toEqual([]);
  });

  test("counted calls run at most max_tool_batch_size at a time; results keep call order", async () => {
    const script = `responses:\n  - tool_calls:\n${calls("probe", 6)}\n  - text: done\n`;
    const p = makeProject(scriptedConfig("models:\n  test-scripted: { max_tool_batch_size: 2 }\n"), { "script.yaml": script });
    const probe = probeTool("probe");
    const r = await startSession(p, { extraTools: [probe.tool] });
    r.session.submit({ text: "go" });
    await waitFor(() => probe.state.started === 2, "two probes running");
    await Bun.sleep(20);
    expect(probe.state.started).toBe(2);
    probe.state.release();
    await r.session.idle();
    expect(probe.state.max).toBe(2);
    const results = r.session.conversation.entries.find((e) => e.role === "tool_results");
    expect(results?.role === "tool_results" && results.results.map((x) => x.output)).toEqual([0, 1, 2, 3, 4, 5].map((n) => `probe ${n} done`));
  });

  test("calls sharing a lock key never overlap", async () => {
    const script = `responses:\n  - tool_calls:\n${calls("locked", 3)}\n  - text: done\n`;
    const p = makeProject(scriptedConfig(), { "script.yaml": script });
    const probe = probeTool("locked", { lockKey: "same" });
    const r = await startSession(p, { extraTools: [probe.tool] });
    r.session.submit({ text: "go" });
    await waitFor(() => probe.state.started === 1, "first call");
    probe.state.release();
    await r.session.idle();
    expect(probe.state.started).toBe(3);
    expect(probe.state.max).toBe(1);
  });

  test("max_tool_turns stops the turn with every call answered, a reminder before the last round, and a wrap-up answer", async () => {
    const round = `  - tool_calls:\n      - { name: glob, arguments: { pattern: "*" } }\n`;
    const p = makeProject(scriptedConfig("daemon: { max_tool_turns: 2 }\n"), { "script.yaml": `responses:\n${round}${round}${round}` });
    const r = await startSession(p);
    r.session.submit({ text: "loop" });
    await r.session.idle();
    const done = r.of("turn_completed")[0]!;
    expect(done.stop_reason).toBe("max_tool_turns");
    expect(done.error?.message).toContain("2 tool round-trips");
    // Two rounds ran; the wrap-up call still asked for a tool, which was answered as not run.
    expect(r.of("tool_call_completed").map((e) => e.result.status)).toEqual(["completed", "completed", "denied"]);
    expect(r.of("tool_call_completed")[2]!.result.output).toContain("tool budget");
    const reminders = r.of("user_message").filter((e) => e.message.origin === "reminder");
    expect(reminders.map((e) => (e.message.content[0] as { text: string }).text)).toEqual([expect.stringContaining('name="max_tool_turns"')]);
    expect(unansweredCalls(r.session.conversation)).toEqual([]);
  });

  test("a disabled reminder is never added", async () => {
    const round = `  - tool_calls:\n      - { name: glob, arguments: { pattern: "*" } }\n`;
    const p = makeProject(scriptedConfig("daemon: { max_tool_turns: 1, system_reminders: { disabled: [max_tool_turns] } }\n"), { "script.yaml": `responses:\n${round}` });
    const r = await startSession(p);
    r.session.submit({ text: "loop" });
    await r.session.idle();
    expect(r.of("user_message").filter((e) => e.message.origin === "reminder")).toEqual([]);
  });

  test("exit_tool ends the turn after its round; an unknown tool gets an error result naming the tools", async () => {
    const script = `responses:
  - tool_calls:
      - { name: no_such_tool, arguments: {} }
      - { name: exit_tool, arguments: { summary: "nothing to do" } }
  - text: "never reached"
`;
    const p = makeProject(scriptedConfig(), { "script.yaml": script });
    const r = await startSession(p);
    r.session.submit({ text: "go" });
    await r.session.idle();
    expect(r.of("turn_completed")[0]!.stop_reason).toBe("exit_tool");
    const unknown = r.of("tool_call_completed").find((e) => e.result.name === "no_such_tool")!;
    expect(unknown.result.status).toBe("error");
    expect(unknown.result.output).toContain("There is no tool named `no_such_tool`");
    expect(unknown.result.output).toContain("read");
    expect(r.of("assistant_message_started")).toHaveLength(1);
  });

  test("disabled tools are not offered, not runnable and not found by tool_search", async () => {
    const script = `responses:
  - tool_calls:
      - { name: tool_search, arguments: { query: "grep search file contents" } }
      - { name: grep, arguments: { pattern: "x" } }
  - text: done
`;
    const p = makeProject(scriptedConfig("daemon: { disabled_tools: [grep, tool_search] }\n"), { "script.yaml": script });
    const r = await startSession(p);
    expect(r.notices.join("\n")).toContain('"tool_search"');
    r.session.submit({ text: "go" });
    await r.session.idle();
    const byName = new Map(r.of("tool_call_completed").map((e) => [e.result.name, e.result]));
    const search = byName.get("tool_search");
    const grep = byName.get("grep");
    expect(search!.status).toBe("completed");
    expect(search!.output).not.toContain("## grep");
    expect(grep!.status).toBe("error");
    expect(grep!.output).toContain("There is no tool named `grep`");
  });

  test("input while busy is queued; the newest can be dequeued; the rest runs next", async () => {
    const script = `responses:\n  - tool_calls:\n${calls("probe", 1)}\n  - text: first\n  - text: second\n`;
    const p = makeProject(scriptedConfig(), { "script.yaml": script });
    const probe = probeTool("probe");
    const r = await startSession(p, { extraTools: [probe.tool] });
    expect(r.session.submit({ text: "one" }).queued).toBe(false);
    await waitFor(() => probe.state.started === 1, "the probe");
    expect(r.session.submit({ text: "two" }).queued).toBe(true);
    expect(r.session.submit({ text: "three" }).queued).toBe(true);
    expect(r.session.queue.map((q) => q.text)).toEqual(["two", "three"]);
    expect(r.session.dequeueNewest()?.text).toBe("three");
    expect(r.of("queue_changed").at(-1)!.queue.map((q) => q.text)).toEqual(["two"]);
    probe.state.release();
    await r.session.idle();
    const prompts = r.of("user_message").filter((e) => e.message.origin === "prompt").map((e) => (e.message.content[0] as { text: string }).text);
    expect(prompts).toEqual(["one", "two"]);
    expect(r.of("turn_completed").map((e) => e.stop_reason)).toEqual(["end_turn", "end_turn"]);
  });

  test("interrupt mid-tool cancels the running call and leaves every call answered", async () => {
    const script = `responses:\n  - tool_calls:\n${calls("probe", 3)}\n  - text: after\n`;
    const p = makeProject(scriptedConfig("models:\n  test-scripted: { max_tool_batch_size: 1 }\n"), { "script.yaml": script });
    const probe = probeTool("probe");
    const r = await startSession(p, { extraTools: [probe.tool] });
    r.session.submit({ text: "go" });
    await waitFor(() => probe.state.started === 1, "the first probe");
    r.session.interrupt();
    await r.session.idle();
    expect(r.of("turn_completed")[0]!.stop_reason).toBe("interrupted");
    expect(r.of("tool_call_completed").map((e) => e.result.status)).toEqual(["cancelled", "cancelled", "cancelled"]);
    expect(probe.state.started).toBe(1);
    expect(unansweredCalls(r.session.conversation)).toEqual([]);
  });
});

describe("shell in a session", () => {
  test("cd and exports carry over between calls; secret words never reach the environment; close ends the shell", async () => {
    const script = `responses:
  - tool_calls:
      - { name: shell, arguments: { command: "mkdir -p sub && cd sub && export GREETING=hi" } }
  - tool_calls:
      - { name: shell, arguments: { command: "pwd; echo \\"$GREETING\\"; env | grep -c tok-secret-123 || true" } }
  - text: done
`;
    const p = makeProject(scriptedConfig("permissions: { secret_words: [tok-secret-123] }\n"), { "script.yaml": script });
    p.env.LEAKY = "value-with-tok-secret-123-inside";
    const r = await startSession(p);
    r.session.submit({ text: "go" });
    await r.session.idle();
    const out = r.of("tool_call_completed")[1]!.result.output;
    expect(out).toContain(join(p.root, "sub"));
    expect(out).toContain("hi");
    expect(out).toMatch(/^0$/m);
    await r.session.close();
  });
});

test("a submitted input's id is the id of the user message it becomes", async () => {
  const p = makeProject(scriptedConfig(), { "script.yaml": "responses:\n  - text: hi\n" });
  const r = await startSession(p);
  const { input_id } = r.session.submit({ text: "hello" });
  await r.session.idle();
  expect(r.of("user_message")[0]!.message.id).toBe(input_id);
});
