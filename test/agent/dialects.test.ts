// End-to-end turns against the HTTP provider fakes of each base dialect: a tool turn that edits a file,
// the request that follows carries the results, interrupt mid-stream, and the system prompt's context.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { READ_ONLY_TOOLS } from "../../src/agent/context/facets.ts";
import { unansweredCalls } from "../../src/agent/conversation.ts";
import { framesFor, startProviderFake, type FakeStep, type ProviderFake } from "../fakes/provider-fake.ts";
import type { Dialect } from "../fakes/request-invariants.ts";
import { makeProject, startSession, waitFor } from "./harness.ts";

const KINDS: Record<Dialect, string> = { a_messages: "custom_a_compatible", b_chat_completions: "custom_b_compatible", b_responses: "custom_b_responses" };
const DIALECTS = Object.keys(KINDS) as Dialect[];

let fakes: ProviderFake[] = [];
afterEach(async () => {
  for (const f of fakes) await f.stop();
  fakes = [];
});

function fakeConfig(dialect: Dialect, fake: ProviderFake, extra = ""): string {
  return `providers:
  fake: { kind: { type: ${KINDS[dialect]} }, url: "${fake.base}", auth: { type: static_key, key: sk-test-key-0123456789 } }
models:
  m: { provider: fake, class: full, context_window: 100000 }
defaults: { full: m }
default_permission_matcher: bypass
${extra}`;
}

/** The ids of the tool calls in a request's history, as each dialect writes them. */
function toolCallIds(dialect: Dialect, body: any): string[] {
  if (dialect === "a_messages") return body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).filter((b: any) => b.type === "tool_use").map((b: any) => b.id);
  if (dialect === "b_chat_completions") return body.messages.flatMap((m: any) => m.tool_calls ?? []).map((c: any) => c.id);
  return body.input.filter((i: any) => i.type === "function_call").map((i: any) => i.call_id);
}

/** The call ids the request's tool results answer. */
function toolResultIds(dialect: Dialect, body: any): string[] {
  if (dialect === "a_messages") return body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).filter((b: any) => b.type === "tool_result").map((b: any) => b.tool_use_id);
  if (dialect === "b_chat_completions") return body.messages.filter((m: any) => m.role === "tool").map((m: any) => m.tool_call_id);
  return body.input.filter((i: any) => i.type === "function_call_output").map((i: any) => i.call_id);
}

function systemText(dialect: Dialect, body: any): string {
  if (dialect === "a_messages") return (body.system ?? []).map((b: { text: string }) => b.text).join("\n");
  if (dialect === "b_chat_completions") return body.messages.find((m: { role: string }) => m.role === "system")?.content ?? "";
  return body.instructions ?? "";
}

describe.each(DIALECTS)("%s", (dialect) => {
  test("a tool turn edits a file on disk; the next request answers every call", async () => {
    const script: FakeStep[] = [
      {
        kind: "turn",
        turn: {
          text: "Fixing the greeting.",
          tool_calls: [
            { id: "call_1", name: "edit", arguments: JSON.stringify({ path: "greet.txt", old_string: "helo", new_string: "hello" }) },
            { id: "call_2", name: "read", arguments: JSON.stringify({ path: "greet.txt" }) },
          ],
          usage: { input: 120, output: 30 },
        },
      },
      { kind: "turn", turn: { text: "Fixed the typo in greet.txt.", usage: { input: 200, output: 10 } } },
    ];
    const fake = startProviderFake(dialect, script);
    fakes.push(fake);
    const p = makeProject(fakeConfig(dialect, fake), { "greet.txt": "helo world\n" });
    const r = await startSession(p);
    r.session.submit({ text: "fix the typo" });
    await r.session.idle();
    expect(fake.violations).toEqual([]);
    expect(readFileSync(join(p.root, "greet.txt"), "utf8")).toBe("hello world\n");
    expect(fake.requests).toHaveLength(2);
    const second = JSON.stringify(fake.requests[1]!.body);
    expect(second).toContain("call_1");
    expect(second).toContain("call_2");
    const done = r.of("turn_completed")[0]!;
    expect(done.stop_reason).toBe("end_turn");
    expect(done.usage.input_tokens).toBe(320);
    expect(done.usage.output_tokens).toBe(40);
    // The tools were offered with their JSON schemas.
    expect(JSON.stringify(fake.requests[0]!.body)).toContain('"edit"');
  });

  test("a stream that fails after a tool call: the next request carries a result for that call", async () => {
    const turn = { text: "Reading.", tool_calls: [{ id: "call_9", name: "read", arguments: JSON.stringify({ path: "a.txt" }) }] };
    const frames = framesFor(dialect, turn);
    // Cut after the frame that completes the call, before the end of the message (no retry: it fails at once).
    const last = frames.findLastIndex((f) => f.includes("content_block_stop") || f.includes("response.output_item.done") || f.includes('"finish_reason":"tool_calls"'));
    const fake = startProviderFake(dialect, [
      { kind: "frames", frames, cutAfter: last + 1 },
      { kind: "turn", turn: { text: "Carrying on." } },
    ]);
    fakes.push(fake);
    const p = makeProject(fakeConfig(dialect, fake, "daemon: { retry: { max_retries: 0 } }\n"), { "a.txt": "a\n" });
    const r = await startSession(p);
    r.session.submit({ text: "read it" });
    await r.session.idle();
    expect(r.of("turn_completed").map((e) => e.stop_reason)).toEqual(["error"]);
    // Messages and Responses close the call in the stream: it is answered as not run (never run). Chat
    // Completions closes calls only at the stream's end, so its cut call is dropped whole, call and all.
    const kept = dialect === "b_chat_completions" ? [] : ["call_9"];
    r.session.submit({ text: "go on" });
    await r.session.idle();
    expect(fake.requests).toHaveLength(2);
    const next = fake.requests[1]!.body;
    expect(toolCallIds(dialect, next)).toEqual(kept);
    expect(toolResultIds(dialect, next)).toEqual(kept);
    expect(fake.violations).toEqual([]);
    expect(r.of("tool_call_completed").map((e) => [e.result.call_id, e.result.status])).toEqual(kept.map((id) => [id, "cancelled"]));
    expect(r.of("turn_completed").map((e) => e.stop_reason)).toEqual(["error", "end_turn"]);
  });

  test("interrupt mid-stream keeps the streamed text, and the next prompt works", async () => {
    const long = "word ".repeat(40);
    const fake = startProviderFake(dialect, [
      { kind: "turn", turn: { text: long, chunk: 5 }, stallAfter: 6 },
      { kind: "turn", turn: { text: "Second answer." } },
    ]);
    fakes.push(fake);
    const p = makeProject(fakeConfig(dialect, fake));
    const r = await startSession(p);
    r.session.submit({ text: "tell me something long" });
    await waitFor(() => fake.stalls() === 1 && r.of("part_delta").length > 0, "the stalled stream");
    r.session.interrupt();
    await r.session.idle();
    expect(r.of("turn_completed")[0]!.stop_reason).toBe("interrupted");
    const kept = r.of("part_completed")[0]!.part;
    expect(kept.type === "text" && kept.text.length > 0 && long.startsWith(kept.text)).toBe(true);
    r.session.submit({ text: "again" });
    await r.session.idle();
    expect(fake.violations).toEqual([]);
    expect(r.of("turn_completed").map((e) => e.stop_reason)).toEqual(["interrupted", "end_turn"]);
    expect(unansweredCalls(r.session.conversation)).toEqual([]);
  });

  test("the system prompt carries the facet, AGENTS.md files, skills and variables", async () => {
    const fake = startProviderFake(dialect, [{ kind: "turn", turn: { text: "ok" } }]);
    fakes.push(fake);
    const p = makeProject(fakeConfig(dialect, fake), {
      "AGENTS.md": "Use tabs in {{project_name}}.",
      ".agent/AGENTS.md": "Run `make check` before finishing.",
      ".agent/variables.yaml": "project_name: widget\n",
      ".agent/skills/release/SKILL.md": "---\ndescription: How to cut a release\n---\nSteps...",
      ".agent/skills/hidden.md": "---\ndescription: internal\nmodel_invocable: false\n---\nx",
    });
    mkdirSync(join(p.env.HOME!, ".config", "agent"), { recursive: true });
    writeFileSync(join(p.env.HOME!, ".config", "agent", "AGENTS.md"), "Answer briefly.");
    const r = await startSession(p);
    r.session.submit({ text: "hi" });
    await r.session.idle();
    const system = systemText(dialect, fake.requests[0]!.body);
    expect(system).toContain("You are agent");
    expect(system.indexOf("Answer briefly.")).toBeLessThan(system.indexOf("Use tabs in widget."));
    expect(system.indexOf("Use tabs in widget.")).toBeLessThan(system.indexOf("Run `make check`"));
    expect(system).toContain("- release: How to cut a release");
    expect(system).not.toContain("hidden");
    expect(system).toContain("- project_name = widget");
  });
});

test("with follow_symlinks_for_configs off, a symlinked AGENTS.md is skipped with a notice", async () => {
  const fake = startProviderFake("a_messages", [{ kind: "turn", turn: { text: "ok" } }]);
  fakes.push(fake);
  const p = makeProject(fakeConfig("a_messages", fake, "daemon: { follow_symlinks_for_configs: false }\n"), { "real.md": "Secret rules." });
  symlinkSync(join(p.root, "real.md"), join(p.root, ".agent", "AGENTS.md"));
  const r = await startSession(p);
  expect(r.notices.join("\n")).toContain("is a symlink and daemon.follow_symlinks_for_configs is off");
  r.session.submit({ text: "hi" });
  await r.session.idle();
  expect(systemText("a_messages", fake.requests[0]!.body)).not.toContain("Secret rules.");
});

test("the plan facet offers the session's tools (the cached prefix survives a switch) and its prompt says plan mode", async () => {
  const fake = startProviderFake("b_chat_completions", [{ kind: "turn", turn: { text: "plan" } }]);
  fakes.push(fake);
  const p = makeProject(fakeConfig("b_chat_completions", fake));
  const r = await startSession(p, { facet: "plan" });
  r.session.submit({ text: "plan it" });
  await r.session.idle();
  const names = fake.requests[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name).sort();
  expect(names).toEqual(expect.arrayContaining(["exit_tool", "glob", "grep", "progress_update", "read", "write", "shell"]));
  // Refused at call time instead (test/agent/facets-switch.test.ts runs one).
  for (const name of names) expect(r.session.engineRuntime.tools.refusal?.(name) === null).toBe(READ_ONLY_TOOLS.has(name));
  expect(systemText("b_chat_completions", fake.requests[0]!.body)).toContain("plan mode");
});

describe("the wrap-up answer after max_tool_turns", () => {
  const script = (): FakeStep[] => [
    { kind: "turn", turn: { tool_calls: [{ id: "call_1", name: "glob", arguments: '{"pattern":"*"}' }] } },
    { kind: "turn", turn: { text: "I listed the files; ask me to go on." } },
  ];

  test("is forced with tool_choice none when the model supports forcing", async () => {
    const fake = startProviderFake("b_chat_completions", script());
    fakes.push(fake);
    const p = makeProject(fakeConfig("b_chat_completions", fake, "daemon: { max_tool_turns: 1 }\n"));
    const r = await startSession(p);
    r.session.submit({ text: "look around" });
    await r.session.idle();
    expect(fake.violations).toEqual([]);
    expect(fake.requests[0]!.body.tool_choice).toBeUndefined();
    expect(fake.requests[1]!.body.tool_choice).toBe("none");
    const done = r.of("turn_completed")[0]!;
    expect(done.stop_reason).toBe("max_tool_turns");
    const last = r.session.conversation.entries.at(-1)!;
    expect(last.role === "assistant" && last.content[0]?.type === "text" && last.content[0].text).toBe("I listed the files; ask me to go on.");
  });

  test("is asked for by the tool_choice reminder when forcing is not supported", async () => {
    const fake = startProviderFake("a_messages", script());
    fakes.push(fake);
    const p = makeProject(fakeConfig("a_messages", fake, "daemon: { max_tool_turns: 1 }\n").replace("context_window: 100000", "context_window: 100000, forced_tool_choice_supported: false"));
    const r = await startSession(p);
    r.session.submit({ text: "look around" });
    await r.session.idle();
    expect(fake.requests[1]!.body.tool_choice).toBeUndefined();
    expect(JSON.stringify(fake.requests[1]!.body.messages)).toContain('system-reminder name=\\"tool_choice\\"');
    expect(r.of("turn_completed")[0]!.stop_reason).toBe("max_tool_turns");
  });
});
