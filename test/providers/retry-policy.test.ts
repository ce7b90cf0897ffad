import { describe, expect, test } from "bun:test";
import { ProviderError, type ProviderErrorInit } from "../../src/providers/errors.ts";
import type { StreamEvent } from "../../src/providers/events.ts";
import { RATE_LIMIT_SCHEDULE_MS, planRetry, streamWithRetry } from "../../src/providers/retry.ts";
import { DEFAULT_RETRY } from "../../src/providers/settings.ts";
import { InstantClock } from "../fakes/fake-clock.ts";
import { RunawayLoopError } from "../fakes/step-cap.ts";

const err = (init: Partial<ProviderErrorInit> & Pick<ProviderErrorInit, "kind">) => new ProviderError({ message: "x", ...init });
const zero = { general: 0, rateLimit: 0 };
const noJitter = () => 0;

describe("planRetry", () => {
  test("retries 408, 409, 429, 5xx, 529, overloaded, resets and stalls; never 400/401/403/404", () => {
    for (const status of [408, 409, 500, 502, 503, 529]) expect(planRetry(err({ kind: "server", status }), DEFAULT_RETRY, zero, noJitter).retry).toBe(true);
    for (const kind of ["overloaded", "network", "stalled"] as const) expect(planRetry(err({ kind }), DEFAULT_RETRY, zero, noJitter).retry).toBe(true);
    for (const status of [400, 401, 403, 404]) expect(planRetry(err({ kind: "invalid_request", status }), DEFAULT_RETRY, zero, noJitter).retry).toBe(false);
    expect(planRetry(err({ kind: "context_length_exceeded" }), DEFAULT_RETRY, zero, noJitter).retry).toBe(false);
    expect(planRetry(err({ kind: "invalid_tool_arguments" }), DEFAULT_RETRY, zero, noJitter).retry).toBe(false);
  });

  test("x-should-retry wins over the table", () => {
    expect(planRetry(err({ kind: "server", status: 503, shouldRetry: false }), DEFAULT_RETRY, zero, noJitter).retry).toBe(false);
    expect(planRetry(err({ kind: "invalid_request", status: 400, shouldRetry: true }), DEFAULT_RETRY, zero, noJitter).retry).toBe(true);
  });

  test("exponential backoff from base_delay_ms, capped by max_computed_delay_ms, jitter never above the cap", () => {
    const s = { max_retries: 10, base_delay_ms: 1000, max_computed_delay_ms: 5000 };
    const delays = [0, 1, 2, 3, 4].map((g) => planRetry(err({ kind: "server", status: 500 }), s, { general: g, rateLimit: 0 }, noJitter));
    expect(delays.map((d) => (d.retry ? d.delayMs : -1))).toEqual([1000, 2000, 4000, 5000, 5000]);
    const jittered = planRetry(err({ kind: "server", status: 500 }), s, { general: 5, rateLimit: 0 }, () => 0.999);
    expect(jittered.retry && jittered.delayMs).toBeGreaterThanOrEqual(3750);
    expect(jittered.retry && jittered.delayMs).toBeLessThanOrEqual(5000);
  });

  test("provider hints are honoured and not capped", () => {
    const s = { max_retries: 3, base_delay_ms: 1000, max_computed_delay_ms: 2000 };
    expect(planRetry(err({ kind: "overloaded", status: 529, retryAfterMs: 90_000 }), s, zero, noJitter)).toEqual({ retry: true, delayMs: 90_000, schedule: "hint" });
    expect(planRetry(err({ kind: "rate_limited", status: 429, retryAfterMs: 7_000 }), s, zero, noJitter)).toEqual({ retry: true, delayMs: 7_000, schedule: "hint" });
  });

  test("rate limits without a hint follow the fixed schedule for any positive max_retries", () => {
    for (const max of [1, 3, 50]) {
      const s = { ...DEFAULT_RETRY, max_retries: max };
      const plans = [0, 1, 2, 3, 4, 5, 6].map((n) => planRetry(err({ kind: "rate_limited", status: 429 }), s, { general: 0, rateLimit: n }, noJitter));
      expect(plans.map((p) => (p.retry ? p.delayMs : null))).toEqual([30_000, 60_000, 120_000, 240_000, 480_000, 960_000, null]);
    }
  });

  test("the retry limit: retries while fewer than max_retries were made, never at or past it", () => {
    for (const max of [1, 3, 5]) {
      const s = { ...DEFAULT_RETRY, max_retries: max };
      const plans = Array.from({ length: max + 2 }, (_, general) => planRetry(err({ kind: "server", status: 500 }), s, { general, rateLimit: 0 }, noJitter).retry);
      expect({ max, plans }).toEqual({ max, plans: [...Array(max).fill(true), false, false] });
    }
    // A provider hint does not lift the limit.
    expect(planRetry(err({ kind: "overloaded", status: 529, retryAfterMs: 1000 }), { ...DEFAULT_RETRY, max_retries: 2 }, { general: 2, rateLimit: 0 }, noJitter).retry).toBe(false);
  });

  test("max_retries 0 disables every retry, rate limits included", () => {
    const s = { ...DEFAULT_RETRY, max_retries: 0 };
    expect(planRetry(err({ kind: "rate_limited", status: 429 }), s, zero, noJitter).retry).toBe(false);
    expect(planRetry(err({ kind: "stalled" }), s, zero, noJitter).retry).toBe(false);
  });
});

describe("streamWithRetry", () => {
  const ok: StreamEvent[] = [
    { type: "text_delta", index: 0, text: "fine" },
    { type: "done", stop_reason: "end_turn", raw_stop_reason: "end_turn", usage: { input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 } },
  ];

  test("rate-limited call walks the fixed schedule on the fake clock and emits retry events", async () => {
    const clock = new InstantClock();
    let calls = 0;
    const events: StreamEvent[] = [];
    for await (const e of streamWithRetry({
      settings: DEFAULT_RETRY,
      clock,
      random: noJitter,
      attempt: async function* () {
        calls++;
        if (calls <= 4) throw err({ kind: "rate_limited", status: 429, code: "rate_limit_error" });
        yield* ok;
      },
    }))
      events.push(e);
    expect(calls).toBe(5);
    expect(clock.sleeps).toEqual(RATE_LIMIT_SCHEDULE_MS.slice(0, 4));
    expect(events.filter((e) => e.type === "retry")).toEqual(
      [30_000, 60_000, 120_000, 240_000].map((delay, i) => ({ type: "retry", attempt: i + 2, max_retries: 6, delay_ms: delay, status: 429, code: "rate_limit_error", reason: "x" })),
    );
    expect(events.at(-1)?.type).toBe("done");
  });

  test("gives up after max_retries and rethrows the last typed error", async () => {
    const clock = new InstantClock();
    let calls = 0;
    const run = async () => {
      for await (const _ of streamWithRetry({
        settings: { ...DEFAULT_RETRY, max_retries: 2 },
        clock,
        random: noJitter,
        attempt: async function* () {
          calls++;
          throw err({ kind: "server", status: 500, code: "api_error" });
        },
      }));
    };
    const e = await run().catch((x) => x);
    expect(e).toBeInstanceOf(ProviderError);
    expect(e.code).toBe("api_error");
    expect(calls).toBe(3);
    expect(clock.sleeps).toEqual([1000, 2000]);
  });

  test("a provider that always fails is called max_retries + 1 times, then the error surfaces", async () => {
    for (const max of [1, 4]) {
      const clock = new InstantClock();
      let calls = 0;
      const error = await (async () => {
        for await (const _ of streamWithRetry({
          settings: { ...DEFAULT_RETRY, max_retries: max },
          clock,
          random: noJitter,
          attempt: async function* () {
            calls++;
            throw err({ kind: "overloaded", status: 529, code: "overloaded_error" });
          },
        }));
      })().catch((x) => x);
      expect({ max, calls, sleeps: clock.sleeps.length, code: error.code }).toEqual({ max, calls: max + 1, sleeps: max, code: "overloaded_error" });
    }
  });

  test("a loop that never stops sleeping fails fast on the fake clock's step cap instead of hanging the suite", async () => {
    const clock = new InstantClock(0, 50);
    const runaway = async () => {
      for (;;) await clock.sleep(1);
    };
    const error = await runaway().catch((x) => x);
    expect(error).toBeInstanceOf(RunawayLoopError);
    expect(error.message).toContain("more than 50 steps");
    expect(clock.sleeps.length).toBe(50);
  });

  test("partial content from a failed attempt is handed to the next attempt", async () => {
    const clock = new InstantClock();
    const partials: unknown[] = [];
    for await (const _ of streamWithRetry({
      settings: DEFAULT_RETRY,
      clock,
      random: noJitter,
      attempt: async function* (n, partial) {
        partials.push(partial?.parts ?? null);
        if (n === 1) {
          yield { type: "text_delta", index: 0, text: "half an ans" } as StreamEvent;
          throw err({ kind: "stalled", code: "stream_stalled" });
        }
        yield* ok;
      },
    }));
    expect(partials).toEqual([null, [{ type: "text", text: "half an ans" }]]);
  });
});
