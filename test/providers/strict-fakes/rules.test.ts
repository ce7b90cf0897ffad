// Every rule of every strict fake, on its own: the request it must refuse gets the vendor's status and
// message (over HTTP, recorded in `violations`), and the nearest valid request passes the vendor's
// whole table. A rule without a case here fails the completeness test.
import { describe, expect, test } from "bun:test";
import { startProviderFake } from "../../fakes/provider-fake.ts";
import { type StrictFake, startStrictFake, strictProfile, strictVendorNames } from "../../fakes/strict-fake.ts";
import { firstBrokenRule } from "../../fakes/strict/vendors.ts";
import { ANTHROPIC_HEADERS, CASES } from "./cases.ts";

const PATHS = { a_messages: "/v1/messages", b_chat_completions: "/v1/chat/completions", b_responses: "/v1/responses" } as const;

async function post(fake: StrictFake, body: unknown, headers: Record<string, string>) {
  const res = await fetch(fake.url + PATHS[fake.profile.dialect], { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

const defaultHeaders = (vendor: string) => (strictProfile(vendor).dialect === "a_messages" ? ANTHROPIC_HEADERS : {});

describe("each rule refuses what the vendor refuses and accepts the valid form", () => {
  for (const c of CASES) {
    test(`${c.vendor} · ${c.rule}: ${c.what}`, async () => {
      const fake = startStrictFake(c.vendor, [{ kind: "turn", turn: { text: "ok" } }]);
      try {
        const bad = await post(fake, c.bad, c.headers ?? defaultHeaders(c.vendor));
        expect(bad.status).toBe(c.status ?? 400);
        expect(bad.text).toContain(JSON.stringify(c.message).slice(1, -1));
        expect(fake.violations).toHaveLength(1);
        expect(fake.violations[0]).toStartWith(`${c.rule}: `);
        expect(fake.violations[0]).toContain(c.message);
      } finally {
        await fake.stop();
      }
      const accepted = firstBrokenRule(strictProfile(c.vendor), c.good, defaultHeaders(c.vendor));
      expect(accepted ? `${accepted.rule.id}: ${accepted.message}` : null).toBeNull();
    });
  }
});

test("every rule of every vendor has a case", () => {
  const covered = new Set(CASES.map((c) => c.rule));
  const missing = strictVendorNames().flatMap((v) =>
    strictProfile(v)
      .rules.filter((r) => !covered.has(r.id))
      .map((r) => `${v}: ${r.id} (${r.models ? String(r.models) : "every model"})`),
  );
  expect(missing).toEqual([]);
});

test("every rule cites the page it was written from", () => {
  for (const v of strictVendorNames()) for (const r of strictProfile(v).rules) expect(r.source).toMatch(/^https:\/\//);
});

test("a refused request does not use a scripted step: the valid retry gets the first answer", async () => {
  const fake = startStrictFake("deepseek", [{ kind: "turn", turn: { text: "first answer", chunk: 100 } }]);
  try {
    const turn = (assistant: Record<string, unknown>) => [
      { role: "user", content: "hi" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "read", arguments: "{}" } }], ...assistant },
      { role: "tool", tool_call_id: "call_1", content: "ok" },
    ];
    expect((await post(fake, { model: "deepseek-v4-pro", stream: true, messages: turn({}) }, {})).status).toBe(400);
    const ok = await post(fake, { model: "deepseek-v4-pro", stream: true, messages: turn({ reasoning_content: "" }) }, {});
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('"content":"first answer"');
    expect(fake.violations).toEqual(["deepseek.reasoning-content-replayed: The `reasoning_content` in the thinking mode must be passed back to the API."]);
  } finally {
    await fake.stop();
  }
});

test("Mistral: ids the fake itself sent are never refused, one the client made up is", async () => {
  const fake = startStrictFake("mistral", [{ kind: "turn", turn: { tool_calls: [{ id: "call_1", name: "read", arguments: "{}" }] } }, { kind: "turn", turn: { text: "done" } }]);
  try {
    const body = (id: string) => ({
      model: "mistral-large-latest",
      stream: true,
      messages: [{ role: "user", content: "hi" }, { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "read", arguments: "{}" } }] }, { role: "tool", tool_call_id: id, content: "ok" }],
    });
    expect((await post(fake, { model: "mistral-large-latest", stream: true, messages: [{ role: "user", content: "hi" }] }, {})).status).toBe(200);
    const renamed = await post(fake, body("call_01"), {});
    expect(renamed.status).toBe(400);
    expect(JSON.parse(renamed.text)).toEqual({ object: "error", message: "Tool call id was call_01 but must be a-z, A-Z, 0-9, with a length of 9.", type: "invalid_function_call", param: null, code: "3280" });
    expect((await post(fake, body("call_1"), {})).status).toBe(200);
  } finally {
    await fake.stop();
  }
});

describe("the vendors' error bodies", () => {
  const cases: [string, Record<string, unknown>, Record<string, string>, number, unknown][] = [
    ["anthropic", { model: "claude-sonnet-5", max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }], foo: 1 }, ANTHROPIC_HEADERS, 400, { type: "error", error: { type: "invalid_request_error", message: "foo: Extra inputs are not permitted" }, request_id: "req_fake" }],
    ["openai", { model: "gpt-5.5", stream: true, input: "hi", foo: 1 }, {}, 400, { error: { message: "Unknown parameter: 'foo'.", type: "invalid_request_error", param: "foo", code: "unknown_parameter" } }],
    ["openai-chat", { model: "gpt-5.5", stream: true, messages: [{ role: "user", content: "hi" }], foo: 1 }, {}, 400, { error: { message: "Unrecognized request argument supplied: foo", type: "invalid_request_error", param: null, code: null } }],
    [
      "deepseek",
      { model: "deepseek-v4-flash", stream: true, messages: [{ role: "user", content: "hi" }, { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }] }, { role: "tool", tool_call_id: "c", content: "ok" }] },
      {}, 400,
      { error: { message: "The `reasoning_content` in the thinking mode must be passed back to the API.", type: "invalid_request_error", param: null, code: "invalid_request_error" } },
    ],
    ["xai", { model: "grok-4.20-0309-non-reasoning", stream: true, messages: [{ role: "user", content: "hi" }], reasoning_effort: "low" }, {}, 400, { code: "Client specified an invalid argument", error: "Model grok-4.20-0309-non-reasoning does not support parameter reasoningEffort." }],
    [
      "mistral", { model: "mistral-large-latest", stream: true, messages: [{ role: "user", content: "hi" }], stream_options: { include_usage: true } }, {}, 422,
      { object: "error", message: { detail: [{ type: "extra_forbidden", loc: ["body", "stream_options"], msg: "Extra inputs are not permitted" }] }, type: "invalid_request_error", param: null, code: null },
    ],
    [
      "google",
      { model: "gemini-3.5-flash", stream: true, messages: [{ role: "user", content: "hi" }, { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }] }, { role: "tool", tool_call_id: "c", content: "ok" }] },
      {}, 400,
      [{ error: { code: 400, message: expect.stringContaining("Function call is missing a thought_signature"), status: "INVALID_ARGUMENT" } }],
    ],
  ];
  for (const [vendor, body, headers, status, expected] of cases) {
    test(vendor, async () => {
      const fake = startStrictFake(vendor, []);
      try {
        const res = await post(fake, body, headers);
        expect(res.status).toBe(status);
        expect(JSON.parse(res.text)).toEqual(expected);
      } finally {
        await fake.stop();
      }
    });
  }
});

test("every catalog provider (but the offline demo) has a strict fake whose dialect is its protocol's", () => {
  for (const name of strictVendorNames()) expect(["a_messages", "b_chat_completions", "b_responses"]).toContain(strictProfile(name).dialect);
  expect(() => strictProfile("test")).toThrow(/no strict fake for 'test'/);
  expect(strictProfile("kimi").vendor).toBe("moonshot");
});

describe("a fake started without a vendor applies the rules every vendor of its dialect shares", () => {
  test("Chat Completions: a tool call without its tool message gets OpenAI's 400", async () => {
    const fake = startProviderFake("b_chat_completions", [{ kind: "turn", turn: { text: "ok" } }]);
    try {
      const res = await fetch(`${fake.base}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }, { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] }] }),
      });
      expect(res.status).toBe(400);
      expect((await res.json()).error.message).toContain("The following tool_call_ids did not have response messages: c1");
      expect(fake.violations[0]).toStartWith("chat.tool-calls-answered: ");
    } finally {
      await fake.stop();
    }
  });

  test("Messages: an empty text block gets Anthropic's error body; Responses: a field OpenAI's document does not define gets OpenAI's", async () => {
    const messages = startProviderFake("a_messages", []);
    const responses = startProviderFake("b_responses", []);
    try {
      const bad = { model: "m", max_tokens: 100, stream: true, messages: [{ role: "user", content: [{ type: "text", text: "" }] }] };
      const res = await fetch(`${messages.base}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(bad) });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error", message: "messages: text content blocks must be non-empty" } });
      const r = await fetch(`${responses.base}/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", stream: true, input: "hi", messages: [] }) });
      expect(r.status).toBe(400);
      expect((await r.json()).error).toEqual({ message: "Unknown parameter: 'messages'.", type: "invalid_request_error", param: "messages", code: "unknown_parameter" });
    } finally {
      await messages.stop();
      await responses.stop();
    }
  });
});
