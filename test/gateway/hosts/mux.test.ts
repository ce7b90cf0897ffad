// The host protocol's mux over real Bun WebSockets on 127.0.0.1: HTTP exchanges both ways, bodies intact.
import { afterEach, describe, expect, test } from "bun:test";
import type { MuxConnection } from "../../../src/gateway/hosts/mux/connection.ts";
import { MAX_DATA } from "../../../src/gateway/hosts/mux/frames.ts";
import { muxPair, type MuxPair } from "./mux-pair.ts";

let pair: MuxPair | undefined;
afterEach(async () => {
  await pair?.stop();
  pair = undefined;
});

function randomBytes(size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i += 65536) crypto.getRandomValues(bytes.subarray(i, Math.min(size, i + 65536)));
  return bytes;
}

/** Echoes method, path, a header and the request body's SHA-256 and length; GET /bytes/N answers N bytes. */
function echoHandler(bodies: Map<number, Uint8Array<ArrayBuffer>>) {
  return async (request: Request) => {
    const url = new URL(request.url);
    const size = url.pathname.startsWith("/bytes/") ? Number(url.pathname.slice(7)) : undefined;
    if (size !== undefined) return new Response(bodies.get(size)!, { headers: { "x-size": String(size) } });
    const body = new Uint8Array(await request.arrayBuffer());
    return Response.json({ method: request.method, path: url.pathname + url.search, header: request.headers.get("x-test"), length: body.byteLength, sha: new Bun.CryptoHasher("sha256").update(body).digest("hex") });
  };
}

const SIZES = [0, 1, 1024 * 1024, 20 * 1024 * 1024];

for (const direction of ["host to front", "front to host"] as const) {
  describe(`exchanges ${direction}`, () => {
    const ends = (p: MuxPair): [MuxConnection, MuxConnection] => (direction === "host to front" ? [p.host, p.front] : [p.front, p.host]);

    test("GET and POST with bodies of 0 B, 1 B, 1 MiB and 20 MiB arrive byte for byte", async () => {
      pair = await muxPair();
      const [client, server] = ends(pair);
      const bodies = new Map(SIZES.map((size) => [size, randomBytes(size)]));
      server.serve(echoHandler(bodies));
      for (const size of SIZES) {
        const got = await client.fetch(new Request(`http://x/bytes/${size}`));
        expect(got.status).toBe(200);
        expect(got.headers.get("x-size")).toBe(String(size));
        const bytes = new Uint8Array(await got.arrayBuffer());
        expect(bytes.byteLength).toBe(size);
        expect(Buffer.compare(bytes, bodies.get(size)!)).toBe(0);

        const sent = bodies.get(size)!;
        const posted = await client.fetch(new Request(`http://x/echo?size=${size}`, { method: "POST", body: sent, headers: { "x-test": "yes" } }));
        expect(await posted.json()).toEqual({ method: "POST", path: `/echo?size=${size}`, header: "yes", length: size, sha: new Bun.CryptoHasher("sha256").update(sent).digest("hex") });
      }
      expect(client.openStreams).toBe(0);
      expect(server.openStreams).toBe(0);
    });

    test("answers of declared length (0 B, 1 B, one DATA frame, one byte more) arrive byte for byte with their length", async () => {
      pair = await muxPair();
      const [client, server] = ends(pair);
      const sizes = [0, 1, MAX_DATA, MAX_DATA + 1];
      const bodies = new Map(sizes.map((size) => [size, randomBytes(size)]));
      server.serve(async (request) => {
        const size = Number(new URL(request.url).pathname.slice(1));
        return new Response(bodies.get(size)!, { headers: { "content-length": String(size) } });
      });
      for (const size of sizes) {
        const got = await client.fetch(new Request(`http://x/${size}`));
        expect(got.headers.get("content-length")).toBe(String(size));
        expect(Buffer.compare(new Uint8Array(await got.arrayBuffer()), bodies.get(size)!)).toBe(0);
      }
      expect(client.openStreams).toBe(0);
      expect(server.openStreams).toBe(0);
    });
  });
}

describe("many exchanges at once", () => {
  test("200 concurrent exchanges each way, interleaved, each gets its own answer", async () => {
    pair = await muxPair();
    const handler = async (request: Request) => {
      const text = await request.text();
      // Answers in pieces with pauses so the 200 streams' frames interleave on the socket.
      const stream = new ReadableStream<string>({
        async start(controller) {
          for (let i = 0; i < 4; i++) {
            controller.enqueue(`${text}:${i};`);
            await Bun.sleep(1);
          }
          controller.close();
        },
      });
      return new Response(stream, { headers: { "x-path": new URL(request.url).pathname } });
    };
    pair.host.serve(handler);
    pair.front.serve(handler);
    const one = async (client: MuxConnection, i: number) => {
      const response = await client.fetch(new Request(`http://x/n/${i}`, { method: "POST", body: `body-${i}` }));
      return [response.headers.get("x-path"), await response.text()];
    };
    const results = await Promise.all(Array.from({ length: 400 }, (_, i) => one(i % 2 ? pair!.host : pair!.front, i)));
    results.forEach(([path, text], i) => {
      expect(path).toBe(`/n/${i}`);
      expect(text).toBe([0, 1, 2, 3].map((k) => `body-${i}:${k};`).join(""));
    });
    expect(pair.host.openStreams).toBe(0);
    expect(pair.front.openStreams).toBe(0);
  });
});
