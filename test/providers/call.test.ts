// End-to-end provider calls against the fakes on a fake clock: retries, stalls, lifetime, autopsy.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ResponseAssembler } from "../../src/providers/assemble.ts";
import { callProvider } from "../../src/providers/call.ts";
import { ProviderError } from "../../src/providers/errors.ts";
import type { AssembledResponse, StreamEvent } from "../../src/providers/events.ts";
import type { ProviderRequest } from "../../src/providers/request.ts";
import { resolveProvider } from "../../src/providers/resolve.ts";
import { DEFAULT_RETRY, type StreamSettings } from "../../src/providers/settings.ts";
import { DEFAULT_STREAM_IDLE_TIMEOUT_SECS } from "../../src/providers/stream-health.ts";
import { FakeClock, until } from "../fakes/fake-clock.ts";
import { type FakeStep, type ProviderFake, startProviderFake } from "../fakes/provider-fake.ts";
import type { Dialect } from "../fakes/request-invariants.ts";

const KEY = "sk-secret-test-key-1234567890";
let fakes: ProviderFake[] = [];
afterEach(async () => {
  for (const f of fakes) await f.stop();
  fakes = [];
});

function buildRequest(partial: AssembledResponse | null): ProviderRequest {
  return {
    model: "fake-model",
    system: null,
    messages: [{ role: "user", content: [{ type: "text", text: "write a story" }] }, ...(partial ? [{ role: "assistant" as const, content: partial.parts }] : [])],
    tools: [],
    max_output_tokens: 500,
    stop_sequences: [],
    reasoning: null,
    request_options: {},
  };
}

const KINDS = { a_messages: "custom_a_compatible", b_chat_completions: "custom_b_compatible", b_responses: "custom_b_responses" } as const;

function setup(dialect: Dialect, script: FakeStep[], stream: StreamSettings | null = null, extra: { sessionDir?: string } = {}) {
  const fake = startProviderFake(dialect, script);
  fakes.push(fake);
  const clock = new FakeClock();
  const provider = resolveProvider("fake", { kind: { type: KINDS[dialect] }, url: fake.base, auth: { type: "static_key", key: KEY } });
  const events: StreamEvent[] = [];
  const autopsies: string[] = [];
  let failure: unknown = null;
  let finished = false;
  const run = (async () => {
    try {
      for await (const e of callProvider({
        provider,
        retry: DEFAULT_RETRY,
        buildRequest,
        deps: {
          clock,
          random: () => 0,
          stream,
          autopsy: extra.sessionDir ? { enabled: true, sessionDir: extra.sessionDir } : null,
          onAutopsy: (r) => "path" in r && autopsies.push(r.path),
        },
      }))
        events.push(e);
    } catch (e) {
      failure = e;
    } finally {
      finished = true;
    }
  })();
  const text = () => events.flatMap((e) => (e.type === "text_delta" ? [e.text] : [])).join("");
  const assembled = () => {
    const a = new ResponseAssembler();
    for (const e of events.slice(events.findLastIndex((e) => e.type === "retry") + 1)) a.push(e);
    return a.snapshot();
  };
  return { fake, clock, events, run, text, assembled, autopsies, failure: () => failure, finished: () => finished };
}

describe.each(["a_messages", "b_chat_completions", "b_responses"] as const)("callProvider over %s", (dialect) => {
  test("HTTP 529 is retried after a backoff on the fake clock, with a retry event", async () => {
    const t = setup(dialect, [
      { kind: "error", status: 529, body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } },
      { kind: "turn", turn: { text: "recovered" } },
    ]);
    await until(() => t.events.some((e) => e.type === "retry"), "retry event");
    expect(t.events.find((e) => e.type === "retry")).toEqual({ type: "retry", attempt: 2, max_retries: 3, delay_ms: 1000, status: 529, code: "overloaded_error", reason: "provider returned HTTP 529 overloaded_error: Overloaded" });
    await until(() => t.clock.pending() > 0, "backoff sleep");
    t.clock.advance(1000);
    await t.run;
    expect(t.failure()).toBeNull();
    expect(t.text()).toBe("recovered");
    expect(t.fake.requests.length).toBe(2);
    expect(t.fake.violations).toEqual([]);
  });

  test("a stalled stream keeps its partial content and is retried with it in context", async () => {
    const t = setup(
      dialect,
      [
        { kind: "turn", turn: { text: "Once upon a time, there was", chunk: 5 }, stallAfter: 6 },
        { kind: "turn", turn: { text: " a fox.", chunk: 5 } },
      ],
      { provider_stream_idle_timeout_secs: 45 },
    );
    await until(() => t.fake.stalls() === 1 && t.text().length > 0 && t.clock.pending() > 0, "stall");
    const partial = t.text();
    await Bun.sleep(5); // let any frame already on the wire be read before time moves
    expect(t.text()).toBe(partial);
    t.clock.advance(45_000);
    await until(() => t.events.some((e) => e.type === "retry"), "retry after stall");
    const retry = t.events.find((e) => e.type === "retry")!;
    expect(retry).toMatchObject({ type: "retry", attempt: 2, code: "stream_stalled" });
    await until(() => t.clock.pending() > 0, "backoff sleep");
    t.clock.advance(1000);
    await t.run;
    expect(t.failure()).toBeNull();
    expect(t.text()).toBe(`${partial} a fox.`);
    // The second request carries the partial answer as the assistant's prefix.
    const second = JSON.stringify(t.fake.requests[1]!.body);
    expect(second).toContain(partial);
    expect(t.fake.violations).toEqual([]);
  });

  test("past provider_stream_max_lifetime_secs the stream is truncated, partial kept, done{max_lifetime}", async () => {
    const t = setup(dialect, [{ kind: "turn", turn: { text: "A very long answer that goes on", chunk: 4 }, stallAfter: 5 }], { provider_stream_max_lifetime_secs: 10 });
    await until(() => t.fake.stalls() === 1 && t.text().length > 0 && t.clock.pending() > 0, "gate");
    await Bun.sleep(5);
    const partial = t.text();
    t.clock.advance(10_000);
    await t.run;
    expect(t.failure()).toBeNull();
    const done = t.events.at(-1);
    expect(done).toMatchObject({ type: "done", stop_reason: "max_lifetime" });
    expect(t.assembled().parts).toEqual([{ type: "text", text: partial }]);
    expect(t.fake.requests.length).toBe(1);
  });

  test("401 is not retried; the autopsy report has status, code and timing but no key or content", async () => {
    const sessionDir = mkdtempSync(join(tmpdir(), "autopsy-"));
    const t = setup(
      dialect,
      [{ kind: "error", status: 401, body: { type: "error", error: { type: "authentication_error", message: `invalid x-api-key ${KEY}` } }, headers: { "request-id": "req_401" } }],
      null,
      { sessionDir },
    );
    await t.run;
    const e = t.failure() as ProviderError;
    expect(e).toBeInstanceOf(ProviderError);
    expect(e.kind).toBe("auth");
    expect(e.message).not.toContain(KEY);
    expect(t.fake.requests.length).toBe(1);
    const files = readdirSync(join(sessionDir, "provider-autopsy"));
    expect(files.length).toBe(1);
    const path = join(sessionDir, "provider-autopsy", files[0]!);
    expect(t.autopsies).toEqual([path]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const text = readFileSync(path, "utf8");
    expect(text).not.toContain(KEY);
    expect(text).not.toContain("write a story");
    const report = JSON.parse(text);
    expect(report).toMatchObject({ provider: "fake", model: "fake-model", error: { kind: "auth", status: 401, code: "authentication_error", request_id: "req_401" }, partial_content_kept: false });
    expect(report.attempts).toEqual([{ attempt: 1, started_at: expect.any(String), duration_ms: 0, kind: "auth", status: 401, code: "authentication_error", request_id: "req_401", delay_ms: null }]);
  });
});

test("default idle timeout applies when the setting is absent or zero", async () => {
  const t = setup("a_messages", [{ kind: "turn", turn: { text: "abcdefghij", chunk: 2 }, stallAfter: 4 }, { kind: "turn", turn: { text: "k" } }], { provider_stream_idle_timeout_secs: 0 });
  await until(() => t.fake.stalls() === 1 && t.clock.pending() > 0, "stall");
  await Bun.sleep(5);
  t.clock.advance(DEFAULT_STREAM_IDLE_TIMEOUT_SECS * 1000 - 1);
  await Bun.sleep(5);
  expect(t.events.some((e) => e.type === "retry")).toBe(false);
  t.clock.advance(1);
  await until(() => t.events.some((e) => e.type === "retry"), "retry after default idle timeout");
  await until(() => t.clock.pending() > 0, "backoff");
  t.clock.advance(1000);
  await t.run;
  expect(t.failure()).toBeNull();
});

test("aborting mid-stream ends the call with a cancelled error and no retry", async () => {
  const fake = startProviderFake("b_responses", [{ kind: "turn", turn: { text: "streaming along", chunk: 3 }, stallAfter: 4 }]);
  fakes.push(fake);
  const provider = resolveProvider("fake", { kind: { type: "custom_b_responses" }, url: fake.base, auth: { type: "no_auth" } });
  const controller = new AbortController();
  const events: StreamEvent[] = [];
  const run = (async () => {
    for await (const e of callProvider({ provider, retry: DEFAULT_RETRY, buildRequest, signal: controller.signal, deps: { clock: new FakeClock() } })) events.push(e);
  })().catch((e) => e);
  await until(() => fake.stalls() === 1 && events.length > 0, "stream under way");
  controller.abort();
  const e = await run;
  expect(e).toBeInstanceOf(ProviderError);
  expect(e.kind).toBe("cancelled");
  expect(events.some((x) => x.type === "retry")).toBe(false);
  expect(fake.requests.length).toBe(1);
});
