// The mux connection's life: version negotiation, a socket closing mid-exchange, heartbeat death, malformed
// frames (1002) and the limits (streams, HEAD size). Real Bun WebSockets on 127.0.0.1; the misbehaving peers
// are raw WebSockets speaking frames by hand.
import { afterEach, describe, expect, test } from "bun:test";
import type { MuxConnection } from "../../../src/gateway/hosts/mux/connection.ts";
import { MuxClosedError } from "../../../src/gateway/hosts/mux/errors.ts";
import { dial } from "../../../src/gateway/hosts/mux/dial.ts";
import { FRAME, SUBPROTOCOL, encodeFrame, encodeJsonFrame } from "../../../src/gateway/hosts/mux/frames.ts";
import { muxPair, startFront, type MuxPair } from "./mux-pair.ts";

let pair: MuxPair | undefined;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  await pair?.stop();
  pair = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** The error `promise` rejects with (not bun test's `rejects`, which would stall WebSocket delivery). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection, got a value");
}

const HOST_HELLO = { side: "host", protocol: 1, min_protocol: 1, agent_version: "test", host_name: "raw-host" };

/** A raw WebSocket "host": sends what the test says, records frames and the close it gets. */
async function rawHost(url: string) {
  const ws = new WebSocket(url.replace("http:", "ws:"), { protocols: [SUBPROTOCOL] } as unknown as string[]);
  ws.binaryType = "arraybuffer";
  const frames: Uint8Array[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (ws.onclose = (event) => resolve({ code: event.code, reason: event.reason })));
  ws.onmessage = (event) => frames.push(new Uint8Array(event.data as ArrayBuffer));
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error("raw host could not connect"));
  });
  cleanups.push(() => ws.close());
  return { ws, frames, closed, send: (bytes: Uint8Array | string) => ws.send(bytes as Uint8Array<ArrayBuffer>) };
}

describe("version negotiation", () => {
  test("overlapping ranges run at the highest version both speak, on both sides", async () => {
    pair = await muxPair({ host: { protocol: { min: 1, max: 3 } }, front: { hello: { protocol: { min: 2, max: 5 } } } });
    expect(pair.host.protocol).toBe(3);
    expect(pair.front.protocol).toBe(3);
    expect(pair.host.peer).toMatchObject({ side: "front", name: "front-a", protocol: 5, min_protocol: 2 });
    expect(pair.front.peer).toMatchObject({ side: "host", name: "host-a", protocol: 3, min_protocol: 1 });
  });

  test("an older host against a newer front that still serves its version runs at the host's", async () => {
    pair = await muxPair({ host: { protocol: { min: 1, max: 1 } }, front: { hello: { protocol: { min: 1, max: 4 } } } });
    expect([pair.host.protocol, pair.front.protocol]).toEqual([1, 1]);
  });

  test("no overlap: both sides fail with an error naming both ranges, and the socket closes with 4001", async () => {
    const front = startFront({ hello: { protocol: { min: 3, max: 4 } } });
    cleanups.push(() => front.server.stop(true));
    const hostError = await rejection(dial(front.url, { token: "hst_x", hello: { side: "host", name: "old-host", protocol: { min: 1, max: 2 } } }));
    const frontError = await rejection(front.next());
    for (const error of [hostError, frontError]) {
      expect(error).toBeInstanceOf(MuxClosedError);
      expect((error as MuxClosedError).code).toBe(4001);
      expect(String(error)).toContain("1-2");
      expect(String(error)).toContain("3-4");
    }
    expect(String(frontError)).toContain("the host old-host speaks 1-2, the front front-a speaks 3-4");
  });

  test("the close reason a peer receives names both ranges", async () => {
    const front = startFront({ hello: { protocol: { min: 3, max: 4 } } });
    cleanups.push(() => front.server.stop(true));
    const raw = await rawHost(front.url);
    raw.send(encodeJsonFrame(FRAME.HELLO, 0, { ...HOST_HELLO, protocol: 2 }));
    expect(await raw.closed).toEqual({ code: 4001, reason: "no common host protocol version: host 1-2, front 3-4" });
    await rejection(front.next());
  });
});

describe("the socket closing mid-exchange", () => {
  test("a pending fetch rejects, open bodies error and the served side's request aborts, on both ends", async () => {
    pair = await muxPair();
    const servedSignals: AbortSignal[] = [];
    const started = Promise.withResolvers<void>();
    pair.front.serve(async (request) => {
      servedSignals.push(request.signal);
      if (new URL(request.url).pathname === "/hang") {
        started.resolve();
        return new Promise<Response>(() => {});
      }
      return new Response(new ReadableStream({ pull: (c) => c.enqueue(new Uint8Array(1000)) }));
    });
    const streaming = await pair.host.fetch(new Request("http://x/stream"));
    const reader = streaming.body!.getReader();
    await reader.read();
    const pending = pair.host.fetch(new Request("http://x/hang"));
    await started.promise;
    // The front's WebSocket server goes away under both exchanges.
    pair.server.stop(true);
    const [pendingError, bodyError] = [await rejection(pending), await rejection(reader.read())];
    for (const error of [pendingError, bodyError]) {
      expect(error).toBeInstanceOf(MuxClosedError);
      expect(String(error)).toContain("the connection to the front front-a closed");
    }
    expect((await pair.host.closed).code).toBeGreaterThan(0);
    await pair.front.closed;
    expect(servedSignals.every((signal) => signal.aborted)).toBe(true);
    expect(String(await rejection(pair.host.fetch(new Request("http://x/after"))))).toContain("closed");
  });

  test("close() fails every open exchange at once with a clear error", async () => {
    pair = await muxPair();
    pair.host.serve(async () => new Promise<Response>(() => {}));
    const pending = Array.from({ length: 5 }, () => pair!.front.fetch(new Request("http://x/")));
    await Bun.sleep(10);
    pair.front.close(1001, "front shutting down");
    for (const p of pending) expect(String(await rejection(p))).toBe("MuxClosedError: the connection to the host host-a closed (1001: front shutting down)");
    expect(await pair.host.closed).toEqual({ code: 1001, reason: "front shutting down" });
  });
});

describe("heartbeats", () => {
  test("a peer that stops answering PINGs: the front closes the connection (4002) and its exchanges fail", async () => {
    const front = startFront({ options: { pingIntervalMs: 50 } });
    cleanups.push(() => front.server.stop(true));
    const raw = await rawHost(front.url);
    raw.send(encodeJsonFrame(FRAME.HELLO, 0, HOST_HELLO));
    const connection = await front.next();
    const pending = connection.fetch(new Request("http://x/never-answered"));
    expect(await connection.closed).toEqual({ code: 4002, reason: "no answer to 3 heartbeats in 150 ms" });
    expect(String(await rejection(pending))).toContain("no answer to 3 heartbeats");
    expect((await raw.closed).code).toBe(4002);
    // It did ask: the raw host got PINGs it never answered.
    expect(raw.frames.filter((f) => f[0] === FRAME.PING).length).toBeGreaterThanOrEqual(3);
  });

  test("a host whose front stops answering closes too (the dialing side keeps the same watch)", async () => {
    const silent = Bun.serve<object>({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request, server) => (server.upgrade(request, { headers: { "Sec-WebSocket-Protocol": SUBPROTOCOL }, data: {} }) ? undefined : new Response("no", { status: 400 })),
      websocket: {
        open: (ws) => void ws.send(encodeJsonFrame(FRAME.HELLO, 0, { side: "front", protocol: 1, min_protocol: 1, agent_version: "test", front_id: "silent" })),
        message: () => {},
      },
    });
    cleanups.push(() => silent.stop(true));
    const host = await dial(`http://127.0.0.1:${silent.port}/`, { token: "hst_x", hello: { side: "host", name: "h" }, pingIntervalMs: 50 });
    expect((await host.closed).code).toBe(4002);
  });

  test("answered PINGs keep an idle connection open", async () => {
    pair = await muxPair({ front: { options: { pingIntervalMs: 20 } }, hostOptions: { pingIntervalMs: 20 } });
    await Bun.sleep(300);
    expect(pair.host.isClosed || pair.front.isClosed).toBe(false);
    pair.host.serve(async () => new Response("alive"));
    expect(await (await pair.front.fetch(new Request("http://x/"))).text()).toBe("alive");
  });
});

describe("malformed frames close the connection with 1002 and a reason", () => {
  const cases: [string, (raw: Awaited<ReturnType<typeof rawHost>>) => void, string][] = [
    ["a text message", (raw) => raw.send("hello"), "a text message: the host protocol is binary frames only"],
    ["a frame before HELLO", (raw) => raw.send(encodeFrame(FRAME.PING, 0, new TextEncoder().encode("{}"))), "PING before HELLO"],
    ["a frame shorter than its header", (raw) => (raw.send(encodeJsonFrame(FRAME.HELLO, 0, HOST_HELLO)), raw.send(new Uint8Array([3, 0]))), "a frame of 2 bytes is shorter than its 5-byte header"],
    ["an unknown frame type", (raw) => (raw.send(encodeJsonFrame(FRAME.HELLO, 0, HOST_HELLO)), raw.send(encodeFrame(99 as never, 1))), "unknown frame type 99"],
    ["HELLO that is not JSON", (raw) => raw.send(encodeFrame(FRAME.HELLO, 0, new Uint8Array([0xff, 0xfe]))), "HELLO on stream 0 is not UTF-8 JSON"],
    ["HELLO without a host_name", (raw) => raw.send(encodeJsonFrame(FRAME.HELLO, 0, { ...HOST_HELLO, host_name: undefined })), "HELLO host_name must be a string of 1 to 255 characters"],
    ["DATA on a stream never opened", (raw) => (raw.send(encodeJsonFrame(FRAME.HELLO, 0, HOST_HELLO)), raw.send(encodeFrame(FRAME.DATA, 7, new Uint8Array(3)))), "DATA on stream 7, which was never opened"],
    ["a HEAD opening a stream with the front's parity", (raw) => (raw.send(encodeJsonFrame(FRAME.HELLO, 0, HOST_HELLO)), raw.send(encodeJsonFrame(FRAME.HEAD, 2, { method: "GET", path: "/", headers: [], body: false }))), "HEAD on stream 2, which was never opened"],
    ["a request HEAD with a bad path", (raw) => (raw.send(encodeJsonFrame(FRAME.HELLO, 0, HOST_HELLO)), raw.send(encodeJsonFrame(FRAME.HEAD, 1, { method: "GET", path: "http://evil/", headers: [], body: false }))), "request HEAD path must start with / and hold no spaces or control characters, got \"http://evil/\""],
    ["DATA beyond the credit granted", (raw) => {
      raw.send(encodeJsonFrame(FRAME.HELLO, 0, HOST_HELLO));
      raw.send(encodeJsonFrame(FRAME.HEAD, 1, { method: "POST", path: "/", headers: [], body: true }));
      for (let i = 0; i < 5; i++) raw.send(encodeFrame(FRAME.DATA, 1, new Uint8Array(64 * 1024)));
    }, "DATA of 65536 bytes exceeds the 0 bytes of credit granted"],
    ["a CREDIT frame of 3 bytes", (raw) => (raw.send(encodeJsonFrame(FRAME.HELLO, 0, HOST_HELLO)), raw.send(encodeFrame(FRAME.CREDIT, 1, new Uint8Array(3)))), "CREDIT payload must be 4 bytes, got 3"],
    ["PING on a stream other than 0", (raw) => (raw.send(encodeJsonFrame(FRAME.HELLO, 0, HOST_HELLO)), raw.send(encodeJsonFrame(FRAME.PING, 5, { at: 1 }))), "PING on stream 5: it belongs on stream 0"],
  ];
  for (const [name, act, reason] of cases) {
    test(name, async () => {
      const front = startFront();
      cleanups.push(() => front.server.stop(true));
      let served: MuxConnection | undefined;
      const accepted = front.next().then((c) => {
        served = c;
        c.serve(async (request) => new Promise<Response>(() => void request));
        return c;
      });
      accepted.catch(() => {});
      const raw = await rawHost(front.url);
      act(raw);
      expect(await raw.closed).toEqual({ code: 1002, reason });
      if (served) expect((await served.closed).code).toBe(1002);
      else expect(String(await rejection(accepted))).toContain(reason);
    });
  }
});

describe("refusals", () => {
  test("a handler returning a Response whose body was already read is a failed handler (502), not an empty answer", async () => {
    const seen: unknown[] = [];
    pair = await muxPair({ front: { options: { onHandlerError: (error) => seen.push(error) } } });
    pair.front.serve(async (request) => {
      if (new URL(request.url).pathname === "/ok") return new Response("ok");
      const used = new Response("consumed");
      await used.text();
      return used;
    });
    expect((await pair.host.fetch(new Request("http://x/used"))).status).toBe(502);
    expect(String(seen[0])).toContain("the handler returned a Response whose body was already read");
    expect(await (await pair.host.fetch(new Request("http://x/ok"))).text()).toBe("ok");
  });

  test("dial refuses plaintext to anything but loopback before connecting (the token would cross the network in clear)", async () => {
    const error = await rejection(dial("http://gateway.example:8080/api/v1/hosts/connect", { token: "hst_secret", hello: { side: "host", name: "h" } }));
    expect(String(error)).toContain("plaintext http://gateway.example:8080/api/v1/hosts/connect is allowed only to loopback");
    expect(String(error)).not.toContain("hst_secret");
  });
});

describe("limits", () => {
  test("exchanges past the peer's stream cap are refused with RESET; the others proceed", async () => {
    pair = await muxPair({ front: { options: { maxStreams: 4 } } });
    const release = Promise.withResolvers<void>();
    pair.front.serve(async () => {
      await release.promise;
      return new Response("ok");
    });
    const first = Array.from({ length: 4 }, () => pair!.host.fetch(new Request("http://x/")));
    await Bun.sleep(20);
    const refused = await rejection(pair.host.fetch(new Request("http://x/")));
    expect(String(refused)).toBe("MuxResetError: the front front-a reset the exchange: too many concurrent exchanges (at most 4)");
    release.resolve();
    for (const response of await Promise.all(first)) expect(await response.text()).toBe("ok");
    expect(await (await pair.host.fetch(new Request("http://x/"))).text()).toBe("ok");
  });

  test("a request head over 64 KiB is refused before anything is sent", async () => {
    pair = await muxPair();
    let calls = 0;
    pair.front.serve(async () => (calls++, new Response("ok")));
    const error = await rejection(pair.host.fetch(new Request("http://x/", { headers: { "x-big": "a".repeat(70_000) } })));
    expect(String(error)).toMatch(/HEAD is \d+ bytes; at most 65536 are allowed/);
    expect(await (await pair.host.fetch(new Request("http://x/"))).text()).toBe("ok");
    expect(calls).toBe(1);
  });

  test("a response head over 64 KiB resets the exchange with the reason; the connection lives on", async () => {
    pair = await muxPair();
    pair.front.serve(async (request) => new URL(request.url).pathname === "/big" ? new Response("x", { headers: { "x-big": "a".repeat(70_000) } }) : new Response("ok"));
    expect(String(await rejection(pair.host.fetch(new Request("http://x/big"))))).toMatch(/the front front-a reset the exchange: the response head is too large: HEAD is \d+ bytes; at most 65536 are allowed/);
    expect(await (await pair.host.fetch(new Request("http://x/"))).text()).toBe("ok");
  });

  test("exchanges opened before the peer called serve() are served once it does", async () => {
    const front = startFront();
    cleanups.push(() => front.server.stop(true));
    const host = await dial(front.url, { token: "hst_x", hello: { side: "host", name: "early" } });
    cleanups.push(() => host.close());
    const connection = await front.next();
    const response = host.fetch(new Request("http://x/early", { method: "POST", body: "before serve" }));
    await Bun.sleep(20);
    connection.serve(async (request) => new Response(`got ${await request.text()}`));
    expect(await (await response).text()).toBe("got before serve");
  });
});
