// Flow control and aborts over the mux: a consumer that does not read stops the producer after the window;
// cancels, aborts and thrown handlers end exchanges on both sides (real Bun WebSockets on 127.0.0.1).
import { afterEach, describe, expect, test } from "bun:test";
import { MuxResetError } from "../../../src/gateway/hosts/mux/errors.ts";
import { WINDOW } from "../../../src/gateway/hosts/mux/frames.ts";
import { muxPair, type MuxPair } from "./mux-pair.ts";

let pair: MuxPair | undefined;
afterEach(async () => {
  await pair?.stop();
  pair = undefined;
});

const CHUNK = 16 * 1024;

/** An endless byte source that counts what it was asked for and learns when it is cancelled. */
function endless() {
  const state = { pulled: 0, cancelled: undefined as unknown, stream: undefined as unknown as ReadableStream<Uint8Array> };
  state.stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      state.pulled += CHUNK;
      controller.enqueue(new Uint8Array(CHUNK).fill(state.pulled / CHUNK % 251));
    },
    cancel(reason) {
      state.cancelled = reason ?? "cancelled";
    },
  });
  return state;
}

/**
 * The error `promise` rejects with. (bun test's `expect(p).rejects` waits for `p` in a nested loop that does
 * not deliver client WebSocket messages, so a rejection that needs a frame never comes.)
 */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection, got a value");
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000 && !check(); i++) await Bun.sleep(5);
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

/** Bytes the producer may be ahead of the consumer: the window plus one chunk in the pump and one queued by its stream. */
const SLACK = WINDOW + 2 * CHUNK;

describe("back-pressure", () => {
  test("an endless response read slowly: the producer is pulled at most a window ahead of the reader", async () => {
    pair = await muxPair();
    const source = endless();
    pair.front.serve(async () => new Response(source.stream));
    const response = await pair.host.fetch(new Request("http://x/events"));
    // Nothing read yet: the producer fills the window and stops.
    await until(() => source.pulled >= WINDOW, "the window to fill");
    await Bun.sleep(200);
    expect(source.pulled).toBeLessThanOrEqual(SLACK);
    const reader = response.body!.getReader();
    let read = 0;
    for (let i = 0; i < 200; i++) {
      const { value } = await reader.read();
      read += value!.byteLength;
      if (i % 20 === 0) await Bun.sleep(20);
      expect(source.pulled - read).toBeLessThanOrEqual(SLACK);
    }
    // 200 reads of up to 16 KiB moved well past the first window: credit kept flowing as the reader read.
    expect(read).toBeGreaterThan(2 * WINDOW);
    await Bun.sleep(200);
    expect(source.pulled - read).toBeLessThanOrEqual(SLACK);
    await reader.cancel();
  });

  test("a request body the handler does not read: the client's body is pulled at most a window", async () => {
    pair = await muxPair();
    const source = endless();
    let requested!: Request;
    const arrived = Promise.withResolvers<void>();
    pair.host.serve(async (request) => {
      requested = request;
      arrived.resolve();
      return new Promise<Response>(() => {});
    });
    const response = pair.front.fetch(new Request("http://x/upload", { method: "POST", body: source.stream }));
    response.catch(() => {});
    await arrived.promise;
    await until(() => source.pulled >= WINDOW, "the window to fill");
    await Bun.sleep(200);
    expect(source.pulled).toBeLessThanOrEqual(SLACK);
    // Reading the request body lets the upload continue.
    const reader = requested.body!.getReader();
    let read = 0;
    while (read < 4 * WINDOW) read += (await reader.read()).value!.byteLength;
    expect(source.pulled - read).toBeLessThanOrEqual(SLACK);
  });
});

describe("early responses", () => {
  test("a response complete before the request body was read stops the upload; the response is still read whole", async () => {
    pair = await muxPair();
    const source = endless();
    pair.host.serve(async () => new Response("x".repeat(100_000), { status: 413 }));
    const response = await pair.front.fetch(new Request("http://x/upload", { method: "POST", body: source.stream }));
    expect(response.status).toBe(413);
    await until(() => source.cancelled !== undefined, "the upload to be cancelled");
    expect((await response.text()).length).toBe(100_000);
    await until(() => pair!.front.openStreams === 0 && pair!.host.openStreams === 0, "both ends to forget the stream");
  });
});

describe("cancel and abort", () => {
  test("an SSE-like endless response read incrementally, then cancelled by the client: the server's stream is cancelled by a RESET", async () => {
    pair = await muxPair();
    let signal!: AbortSignal;
    let cancelled: unknown;
    let n = 0;
    pair.front.serve(async (request) => {
      signal = request.signal;
      const stream = new ReadableStream<string>({
        async pull(controller) {
          await Bun.sleep(2);
          controller.enqueue(`id: ${++n}\ndata: {"n":${n}}\n\n`);
        },
        cancel(reason) {
          cancelled = reason;
        },
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream" } });
    });
    const response = await pair.host.fetch(new Request("http://x/events", { headers: { accept: "text/event-stream" } }));
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("id: 5\n")) text += (await reader.read()).value;
    expect(text.startsWith('id: 1\ndata: {"n":1}\n\nid: 2\n')).toBe(true);
    await reader.cancel("enough");
    await until(() => cancelled !== undefined, "the server's stream to be cancelled");
    // The server learns it from the RESET frame, with the reason the client's side gave.
    expect(signal.aborted).toBe(true);
    expect(cancelled).toBeInstanceOf(MuxResetError);
    expect(String(cancelled)).toContain("the host host-a reset the exchange: cancelled by the reader");
    await until(() => pair!.front.openStreams === 0 && pair!.host.openStreams === 0, "both ends to forget the stream");
  });

  test("request.signal aborted mid-upload: fetch rejects with the abort reason, the server's request aborts, the upload source is cancelled", async () => {
    pair = await muxPair();
    const source = endless();
    let serverSignal!: AbortSignal;
    let serverBodyError: unknown;
    const arrived = Promise.withResolvers<void>();
    pair.host.serve(async (request) => {
      serverSignal = request.signal;
      arrived.resolve();
      const reader = request.body!.getReader();
      try {
        for (;;) await reader.read();
      } catch (error) {
        serverBodyError = error;
      }
      return new Response("never sent");
    });
    const controller = new AbortController();
    const response = pair.front.fetch(new Request("http://x/upload", { method: "POST", body: source.stream, signal: controller.signal }));
    await arrived.promise;
    await until(() => source.pulled > 2 * WINDOW, "the upload to be under way");
    controller.abort(new Error("the user pressed stop"));
    expect(String(await rejection(response))).toContain("the user pressed stop");
    await until(() => serverBodyError !== undefined && source.cancelled !== undefined, "both ends to see the abort");
    expect(serverSignal.aborted).toBe(true);
    expect(String(serverBodyError)).toContain("reset the exchange: aborted by the client");
    await until(() => pair!.front.openStreams === 0 && pair!.host.openStreams === 0, "both ends to forget the stream");
  });

  test("request.signal aborted while the response body streams: the body errors and the server's stream is cancelled", async () => {
    pair = await muxPair();
    const source = endless();
    pair.host.serve(async () => new Response(source.stream));
    const controller = new AbortController();
    const response = await pair.front.fetch(new Request("http://x/download", { signal: controller.signal }));
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    expect(String(await rejection(reader.read()))).toMatch(/abort/i);
    await until(() => source.cancelled !== undefined, "the server's stream to be cancelled");
  });

  test("a handler that throws: fetch resolves with a 502 JSON error naming the route, not the error; onHandlerError gets it", async () => {
    const seen: unknown[] = [];
    pair = await muxPair({ hostOptions: { onHandlerError: (error) => seen.push(error) } });
    pair.host.serve(async () => {
      throw new Error("secret internals /etc/shadow");
    });
    const response = await pair.front.fetch(new Request("http://x/host/v1/sessions?x=1", { method: "POST", body: "{}" }));
    expect(response.status).toBe(502);
    const body = await response.json();
    expect(body).toEqual({ error: "bad_gateway", message: "the host host-a failed to handle POST /host/v1/sessions" });
    expect(JSON.stringify(body)).not.toContain("secret");
    expect(String(seen[0])).toContain("secret internals");
  });

  test("a response body that fails midway: the client's body errors with the reset", async () => {
    pair = await muxPair();
    pair.front.serve(async () => {
      let sent = 0;
      return new Response(new ReadableStream({
        pull(controller) {
          if (sent++ === 3) controller.error(new Error("daemon died"));
          else controller.enqueue(new Uint8Array(100));
        },
      }));
    });
    const response = await pair.host.fetch(new Request("http://x/"));
    expect(String(await rejection(response.arrayBuffer()))).toContain("the front front-a reset the exchange: the response body failed: daemon died");
  });

  test("a response of declared length whose body fails before it is complete: the head arrives, then the body errors with the reset", async () => {
    pair = await muxPair();
    pair.front.serve(async () => new Response(new ReadableStream({ pull: (controller) => controller.error(new Error("daemon died")) }), { headers: { "content-length": "10" } }));
    const response = await pair.host.fetch(new Request("http://x/"));
    expect(response.status).toBe(200);
    expect(String(await rejection(response.arrayBuffer()))).toContain("the front front-a reset the exchange: the response body failed: daemon died");
  });
});
