// A real session (createSessionFromConfig) on the Chat Completions fake with a telemetry block in the
// global config: the turn, both provider requests (one retried) and the tool call arrive as one trace,
// with model, tokens, retries and statuses, and nothing of the prompt, the answer or the tool's content.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startProviderFake, type ProviderFake } from "../fakes/provider-fake.ts";
import { makeProject, startSession } from "../agent/harness.ts";
import { startOtlpReceiver, type OtlpReceiver } from "./otlp-receiver.ts";

let receiver: OtlpReceiver;
let fake: ProviderFake;
afterEach(async () => {
  receiver?.stop();
  await fake?.stop();
});

const PROMPT = "please write the quarterly secret plan";
const ANSWER = "The plan is written to plan.txt.";
const FILE_CONTENT = "step one: confidential-content-xyz";

test("turn, provider requests and tool calls are exported as one trace without content", async () => {
  receiver = startOtlpReceiver();
  fake = startProviderFake("b_chat_completions", [
    { kind: "error", status: 503, body: { error: { message: "overloaded" } } },
    { kind: "turn", turn: { tool_calls: [{ id: "call_1", name: "write", arguments: JSON.stringify({ path: "plan.txt", content: FILE_CONTENT }) }], usage: { input: 120, output: 30 } } },
    { kind: "turn", turn: { text: ANSWER, usage: { input: 200, output: 12 } } },
  ]);
  const project = makeProject(
    `providers:\n  local: { kind: { type: custom_b_compatible }, url: "${fake.base}", auth: { type: no_auth } }\nmodels:\n  m: { provider: local, class: full, context_window: 32768 }\ndefaults: { full: m }\ndefault_permission_matcher: bypass\ndaemon: { retry: { max_retries: 2, base_delay_ms: 1, max_computed_delay_ms: 5 } }\n`,
  );
  const globalDir = join(project.env.HOME!, ".config", "agent");
  mkdirSync(globalDir, { recursive: true });
  writeFileSync(join(globalDir, "config.yaml"), `telemetry: { endpoint: "${receiver.url}", protocol: http/json }\n`);
  const r = await startSession(project);
  r.session.submit({ text: PROMPT });
  await r.session.idle();
  expect(readFileSync(join(project.root, "plan.txt"), "utf8")).toBe(FILE_CONTENT);
  await r.session.close(); // a session's own tracer is flushed on close

  const spans = receiver.spans();
  const turn = spans.find((s) => s.name === "agent.turn")!;
  const chats = spans.filter((s) => s.name === "chat");
  const tool = spans.find((s) => s.name === "execute_tool write")!;
  expect(turn.attributes).toMatchObject({ "agent.model": "m", "agent.turn.stop_reason": "end_turn", "gen_ai.usage.input_tokens": 320, "gen_ai.usage.output_tokens": 42 });
  expect(chats).toHaveLength(2);
  expect(chats.map((c) => c.attributes["agent.provider.retries"])).toEqual([1, 0]);
  expect(chats[0]!.attributes).toMatchObject({ "gen_ai.request.model": "m", "gen_ai.provider.name": "local", "gen_ai.usage.input_tokens": 120, "gen_ai.usage.output_tokens": 30 });
  expect(chats[0]!.kind).toBe(3); // client
  expect(tool.attributes).toMatchObject({ "gen_ai.tool.name": "write", "gen_ai.tool.call.id": "call_1", "agent.tool.status": "completed" });
  for (const child of [...chats, tool]) {
    expect(child.parentSpanId).toBe(turn.spanId);
    expect(child.traceId).toBe(turn.traceId);
  }
  const wire = receiver.requests.map((q) => new TextDecoder().decode(q.body)).join("\n");
  for (const content of [PROMPT, ANSWER, FILE_CONTENT, "plan.txt"]) expect(wire).not.toContain(content);
});

test("without a telemetry block no export request is sent, even with OTEL_* variables set", async () => {
  receiver = startOtlpReceiver();
  fake = startProviderFake("b_chat_completions", [{ kind: "turn", turn: { text: "hi", usage: { input: 1, output: 1 } } }]);
  const project = makeProject(`providers:\n  local: { kind: { type: custom_b_compatible }, url: "${fake.base}", auth: { type: no_auth } }\nmodels:\n  m: { provider: local, class: full, context_window: 32768 }\ndefaults: { full: m }\n`);
  Object.assign(project.env, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`, OTEL_SERVICE_NAME: "x", OTEL_TRACES_SAMPLER: "always_on" });
  const r = await startSession(project);
  r.session.submit({ text: "hello" });
  await r.session.idle();
  await r.session.close();
  expect(r.of("turn_completed")[0]!.stop_reason).toBe("end_turn");
  expect(receiver.requests).toHaveLength(0);
});

test("a call to a real tool server (the reference MCP server over stdio) is a tools/call span under its tool span", async () => {
  receiver = startOtlpReceiver();
  const { EVERYTHING_BIN } = await import("../mcp/helpers.ts");
  const script = `responses:\n  - tool_calls:\n      - { name: tool_search, arguments: { query: "echo message" } }\n      - { name: mcp__ev__echo, arguments: { message: "private echo text" } }\n  - text: done\n`;
  const project = makeProject(`providers:\n  offline: { kind: { type: catalog, name: test }, url: script.yaml }\ndefault_permission_matcher: bypass\nmcp_servers:\n  ev: { transport: stdio, command: "${EVERYTHING_BIN}", args: [stdio], pass_env: [PATH] }\n`, { "script.yaml": script });
  const globalDir = join(project.env.HOME!, ".config", "agent");
  mkdirSync(globalDir, { recursive: true });
  writeFileSync(join(globalDir, "config.yaml"), `telemetry: { endpoint: "${receiver.url}", protocol: http/json }\n`);
  const r = await startSession(project);
  r.session.submit({ text: "echo" });
  await r.session.idle();
  expect(r.of("tool_call_completed").find((e) => e.result.name === "mcp__ev__echo")!.result.status).toBe("completed");
  await r.session.close();
  const spans = receiver.spans();
  const tool = spans.find((s) => s.name === "execute_tool mcp__ev__echo")!;
  const mcp = spans.find((s) => s.name === "tools/call mcp__ev__echo")!;
  expect(mcp.attributes).toMatchObject({ "mcp.method.name": "tools/call", "agent.mcp.server": "ev", "gen_ai.tool.name": "mcp__ev__echo" });
  expect(mcp.kind).toBe(3);
  expect(mcp.parentSpanId).toBe(tool.spanId);
  expect(tool.parentSpanId).toBe(spans.find((s) => s.name === "agent.turn")!.spanId);
  expect(receiver.requests.map((q) => new TextDecoder().decode(q.body)).join("")).not.toContain("private echo text");
}, 30_000);

test("a failed provider request marks its chat span and the turn failed, with the status and kind only", async () => {
  receiver = startOtlpReceiver();
  fake = startProviderFake("b_chat_completions", [{ kind: "error", status: 400, body: { error: { message: "bad request mentioning private-prompt-bits" } } }]);
  const project = makeProject(`providers:\n  local: { kind: { type: custom_b_compatible }, url: "${fake.base}", auth: { type: no_auth } }\nmodels:\n  m: { provider: local, class: full, context_window: 32768 }\ndefaults: { full: m }\n`);
  const globalDir = join(project.env.HOME!, ".config", "agent");
  mkdirSync(globalDir, { recursive: true });
  writeFileSync(join(globalDir, "config.yaml"), `telemetry: { endpoint: "${receiver.url}" }\n`);
  const r = await startSession(project);
  r.session.submit({ text: "hello" });
  await r.session.idle();
  await r.session.close();
  expect(r.of("turn_completed")[0]!.stop_reason).toBe("error");
  const spans = receiver.spans();
  const chat = spans.find((s) => s.name === "chat")!;
  const turn = spans.find((s) => s.name === "agent.turn")!;
  expect(chat.statusCode).toBe(2);
  expect(chat.attributes["http.response.status_code"]).toBe(400);
  expect(typeof chat.attributes["error.type"]).toBe("string");
  expect(turn.statusCode).toBe(2);
  expect(turn.attributes["agent.turn.stop_reason"]).toBe("error");
  expect(receiver.requests.map((q) => new TextDecoder().decode(q.body)).join("")).not.toContain("private-prompt-bits");
});
