// The host protocol's mux over real Bun WebSockets on 127.0.0.1: HTTP exchanges both ways, bodies intact.
import { afterEach, describe, expect, test } from "bun:test";
import type { MuxConnection } from "../../../src/gateway/hosts/mux/connection.ts";
import { muxPair, type MuxPair } from "./mux-pair.ts";

let pair: MuxPair | undefined;
afterEach(async () => {
  await pair?.stop();
  pair = undefined;
});

function randomBytes(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i += 65536) crypto.getRandomValues(bytes.subarray(i, Math.min(size, i + 65536)));
  return bytes;
}

/** Echoes method, path, a header and the request body's SHA-256 and length; GET /bytes/N answers N bytes. */
function echoHandler(bodies: Map<number, Uint8Array>) {
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
  });
}
