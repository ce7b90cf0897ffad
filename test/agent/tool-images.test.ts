// Images that tools return reach the model, in each dialect's own form: `read` of a real PNG and a real
// MCP server's image result (the reference "everything" server's get-tiny-image), seen in the next request
// the strict provider fake of the dialect's vendor receives (Anthropic's rules; OpenAI's requests checked
// against its OpenAPI document). A model that cannot see images gets a text note instead; a session
// resumed from its store sends the image again.
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSession, openSession } from "../../src/daemon/store/index.ts";
import { EVERYTHING_BIN } from "../mcp/helpers.ts";
import { type FakeStep, type ProviderFake } from "../fakes/provider-fake.ts";
import { startStrictFake } from "../fakes/strict-fake.ts";
import type { Dialect } from "../fakes/request-invariants.ts";
import { makeProject, startSession } from "./harness.ts";

const KINDS: Record<Dialect, string> = { a_messages: "custom_a_compatible", b_chat_completions: "custom_b_compatible", b_responses: "custom_b_responses" };
const DIALECTS = Object.keys(KINDS) as Dialect[];
/** Each dialect's requests are checked as its vendor checks them (OpenAI's against its OpenAPI document). */
const VENDORS: Record<Dialect, string> = { a_messages: "anthropic", b_chat_completions: "openai-chat", b_responses: "openai" };
/** A real 1x1 PNG (70 bytes). */
const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const SERVER = `mcp_servers:\n  ev: { transport: stdio, command: "${EVERYTHING_BIN}", args: [stdio], pass_env: [PATH] }\n`;

let fakes: ProviderFake[] = [];
afterEach(async () => {
  for (const f of fakes) await f.stop();
  fakes = [];
});

function config(dialect: Dialect, fake: ProviderFake, vision: boolean, extra = ""): string {
  return `providers:
  fake: { kind: { type: ${KINDS[dialect]} }, url: "${fake.base}", auth: { type: static_key, key: sk-test-key-0123456789 } }
models:
  m: { provider: fake, class: full, context_window: 100000, supports_vision: ${vision}, tool_loading: eager }
defaults: { full: m }
default_permission_matcher: bypass
${extra}`;
}

function script(call: { name: string; arguments: Record<string, unknown> }): FakeStep[] {
  return [
    { kind: "turn", turn: { text: "Looking.", tool_calls: [{ id: "call_1", ...call, arguments: JSON.stringify(call.arguments) }] } },
    { kind: "turn", turn: { text: "A tiny picture." } },
  ];
}

/** The base64 images a request sends as the result of `callId`, read the way each vendor reads them. */
function imagesOfResult(dialect: Dialect, body: any, callId: string): string[] {
  if (dialect === "a_messages") {
    const block = body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).find((b: any) => b.type === "tool_result" && b.tool_use_id === callId);
    return (Array.isArray(block.content) ? block.content : []).filter((b: any) => b.type === "image" && b.source.type === "base64").map((b: any) => b.source.data);
  }
  if (dialect === "b_responses") {
    const item = body.input.find((i: any) => i.type === "function_call_output" && i.call_id === callId);
    return (Array.isArray(item.output) ? item.output : []).filter((p: any) => p.type === "input_image").map((p: any) => p.image_url.replace(/^data:image\/png;base64,/, ""));
  }
  // Chat Completions: the tool message is text; the images come in the user message right after the tool messages.
  const at = body.messages.findIndex((m: any) => m.role === "tool" && m.tool_call_id === callId);
  expect(typeof body.messages[at].content).toBe("string");
  let next = at + 1;
  while (body.messages[next]?.role === "tool") next++;
  const carrier = body.messages[next];
  if (carrier?.role !== "user" || !Array.isArray(carrier.content)) return [];
  const from = carrier.content.findIndex((p: any) => p.type === "text" && p.text.includes(callId));
  if (from < 0) return [];
  const images: string[] = [];
  for (const p of carrier.content.slice(from + 1)) {
    if (p.type !== "image_url") break;
    images.push(p.image_url.url.replace(/^data:image\/png;base64,/, ""));
  }
  return images;
}

/** The text of the result of `callId` as the request carries it. */
function textOfResult(dialect: Dialect, body: any, callId: string): string {
  if (dialect === "a_messages") {
    const block = body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).find((b: any) => b.type === "tool_result" && b.tool_use_id === callId);
    return typeof block.content === "string" ? block.content : block.content.filter((b: any) => b.type === "text").map((b: any) => b.text).join("\n");
  }
  if (dialect === "b_responses") {
    const item = body.input.find((i: any) => i.type === "function_call_output" && i.call_id === callId);
    return typeof item.output === "string" ? item.output : item.output.filter((p: any) => p.type === "input_text").map((p: any) => p.text).join("\n");
  }
  return body.messages.find((m: any) => m.role === "tool" && m.tool_call_id === callId).content;
}

describe.each(DIALECTS)("%s", (dialect) => {
  test("read of a PNG with a vision model: the next request carries the image", async () => {
    const fake = startStrictFake(VENDORS[dialect], script({ name: "read", arguments: { path: "img.png" } }));
    fakes.push(fake);
    const p = makeProject(config(dialect, fake, true));
    writeFileSync(join(p.root, "img.png"), Buffer.from(PNG_BASE64, "base64"));
    const r = await startSession(p);
    r.session.submit({ text: "what is in img.png?" });
    await r.session.idle();
    expect(fake.violations).toEqual([]);
    expect(r.of("turn_completed").map((e) => e.stop_reason)).toEqual(["end_turn"]);
    expect(fake.requests).toHaveLength(2);
    const next = fake.requests[1]!.body;
    expect(imagesOfResult(dialect, next, "call_1")).toEqual([PNG_BASE64]);
    expect(textOfResult(dialect, next, "call_1")).toContain("Image `img.png` (image/png, 70 bytes).");
  });

  test("read of a PNG with a model that cannot see images: a text note, no image", async () => {
    const fake = startStrictFake(VENDORS[dialect], script({ name: "read", arguments: { path: "img.png" } }));
    fakes.push(fake);
    const p = makeProject(config(dialect, fake, false));
    writeFileSync(join(p.root, "img.png"), Buffer.from(PNG_BASE64, "base64"));
    const r = await startSession(p);
    r.session.submit({ text: "what is in img.png?" });
    await r.session.idle();
    expect(fake.violations).toEqual([]);
    const next = fake.requests[1]!.body;
    expect(imagesOfResult(dialect, next, "call_1")).toEqual([]);
    expect(JSON.stringify(next)).not.toContain(PNG_BASE64);
    expect(textOfResult(dialect, next, "call_1")).toContain("the current model cannot see images");
  });

  test("an MCP tool's image result (a real server) reaches the model as an image", async () => {
    const fake = startStrictFake(VENDORS[dialect], script({ name: "mcp__ev__get-tiny-image", arguments: {} }));
    fakes.push(fake);
    const p = makeProject(config(dialect, fake, true, SERVER));
    const r = await startSession(p);
    r.session.submit({ text: "show me the logo" });
    await r.session.idle();
    expect(fake.violations).toEqual([]);
    const result = r.of("tool_call_completed")[0]!.result;
    expect(result.status).toBe("completed");
    const sent = imagesOfResult(dialect, fake.requests[1]!.body, "call_1");
    expect(sent).toHaveLength(1);
    // The server's PNG, byte for byte.
    expect(sent[0]).toBe(result.images![0]!.data_base64);
    expect(Buffer.from(sent[0]!, "base64").subarray(1, 4).toString()).toBe("PNG");
    expect(textOfResult(dialect, fake.requests[1]!.body, "call_1")).toContain("The image above is the MCP logo.");
    await r.session.close();
  }, 30_000);
});

test("a session resumed from its store sends the image of an earlier read again", async () => {
  const fake = startStrictFake("anthropic", [...script({ name: "read", arguments: { path: "img.png" } }), { kind: "turn", turn: { text: "Still a tiny picture." } }]);
  fakes.push(fake);
  const p = makeProject(config("a_messages", fake, true));
  writeFileSync(join(p.root, "img.png"), Buffer.from(PNG_BASE64, "base64"));
  const store = createSession({ dataRoot: join(p.env.HOME!, "data"), project: p.root });
  const first = await startSession(p, { sessionId: store.id, sessionDir: store.dir });
  first.session.subscribe((e) => store.appendEvents([e]));
  first.session.submit({ text: "what is in img.png?" });
  await first.session.idle();
  await first.session.close();
  store.close();
  // The file is gone: only the store can bring the image back.
  writeFileSync(join(p.root, "img.png"), "");
  const reopened = openSession(store.dir);
  const events = reopened.events();
  reopened.close();
  const resumed = await startSession(p, { sessionId: store.id, sessionDir: store.dir, initialEvents: events });
  resumed.session.submit({ text: "and now?" });
  await resumed.session.idle();
  expect(fake.violations).toEqual([]);
  expect(fake.requests).toHaveLength(3);
  expect(imagesOfResult("a_messages", fake.requests[2]!.body, "call_1")).toEqual([PNG_BASE64]);
  await resumed.session.close();
});
