// Idle and lifetime timers on a fake clock, driven chunk by chunk through a test-controlled body.
import { expect, test } from "bun:test";
import { decodeResponseStream } from "../../src/providers/client.ts";
import { ProviderError } from "../../src/providers/errors.ts";
import type { StreamEvent } from "../../src/providers/events.ts";
import { PROTOCOL_INFO } from "../../src/providers/protocols.ts";
import { resolveStreamHealth } from "../../src/providers/stream-health.ts";
import { FakeClock, until } from "../fakes/fake-clock.ts";
import { messagesFrames } from "../fakes/wire-a-messages.ts";

function controlledBody() {
  let ctl!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (ctl = c) });
  return { body, send: (s: string) => ctl.enqueue(new TextEncoder().encode(s)), close: () => ctl.close() };
}

const messages = { dialect: "a_messages" as const, info: PROTOCOL_INFO.a_messages };

function consume(gen: AsyncGenerator<StreamEvent>) {
  const events: StreamEvent[] = [];
  let error: unknown = null;
  let done = false;
  const run = (async () => {
    try {
      for await (const e of gen) events.push(e);
    } catch (e) {
      error = e;
    } finally {
      done = true;
    }
  })();
  return { events, run, error: () => error, done: () => done };
}

test("defaults and zero handling of the stream settings", () => {
  expect(resolveStreamHealth(null)).toEqual({ idleMs: 300_000, lifetimeMs: 3_600_000 });
  expect(resolveStreamHealth({ provider_stream_idle_timeout_secs: 0, provider_stream_max_lifetime_secs: 0 })).toEqual({ idleMs: 300_000, lifetimeMs: null });
  expect(resolveStreamHealth({ provider_stream_idle_timeout_secs: 20, provider_stream_max_lifetime_secs: 90 })).toEqual({ idleMs: 20_000, lifetimeMs: 90_000 });
});

test("keep-alive pings reset the idle timer; silence past it is a stall", async () => {
  const clock = new FakeClock();
  const frames = messagesFrames({ text: "hi" });
  const b = controlledBody();
  const c = consume(decodeResponseStream(b.body, messages, clock, { provider_stream_idle_timeout_secs: 30, provider_stream_max_lifetime_secs: 0 }));
  b.send(frames[0]!);
  for (let i = 0; i < 5; i++) {
    await until(() => clock.pending() === 1, "read timer");
    clock.advance(29_000);
    b.send("event: ping\ndata: {\"type\":\"ping\"}\n\n");
    await until(() => clock.sleeps.length === i + 3, "next read");
  }
  expect(c.done()).toBe(false); // 145 s of wall time, never 30 s of silence
  await until(() => clock.pending() === 1, "read timer");
  clock.advance(30_000);
  await c.run;
  expect(c.error()).toBeInstanceOf(ProviderError);
  expect((c.error() as ProviderError).kind).toBe("stalled");
  expect(c.events[0]).toMatchObject({ type: "response_start" });
});

test("the lifetime limit cuts even a stream that keeps sending", async () => {
  const clock = new FakeClock();
  const b = controlledBody();
  const c = consume(decodeResponseStream(b.body, messages, clock, { provider_stream_idle_timeout_secs: 30, provider_stream_max_lifetime_secs: 60 }));
  const frames = messagesFrames({ text: "abcdefghijklmnopqrstuvwxyz", chunk: 2 });
  let sent = 0;
  while (!c.done() && sent < frames.length - 2) {
    await until(() => clock.pending() === 1 || c.done(), "read timer");
    clock.advance(20_000);
    try {
      b.send(frames[sent]!);
      sent++;
    } catch {
      break; // the client already cut the stream and cancelled the body
    }
  }
  await c.run;
  expect(c.error()).toBeNull();
  expect(c.events.at(-1)).toMatchObject({ type: "done", stop_reason: "max_lifetime" });
  expect(sent).toBeLessThan(frames.length - 2);
});
