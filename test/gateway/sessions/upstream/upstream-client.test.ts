// The session proxy's own HTTP/1.1 client (src/gateway/sessions/upstream/upstream-client.ts) against raw TCP servers
// that write exact bytes: framing (length, chunked, close-delimited, no body), interim responses,
// hop-by-hop headers, keep-alive reuse and its stale-connection retry, refusals of unframeable answers,
// aborts, and backpressure on a body nobody reads.
// Responses are wrapped for the assertions: their header pairs as a Headers, and `finished` once the exchange is over.
import { afterEach, describe, expect, test } from "bun:test";
import type { Socket, TCPSocketListener } from "bun";
import { UpstreamClient, type UpstreamResponse, type Exchange, UpstreamError } from "../../../../src/gateway/sessions/upstream/upstream-client.ts";

interface Conn {
  received: string;
  requests: number;
}

/** A TCP server whose `answer` decides what each complete request head gets (written as raw bytes). */
function rawServer(answer: (socket: Socket<Conn>, head: string, index: number) => void) {
  const seen: { connections: number; closed: number; heads: string[] } = { connections: 0, closed: 0, heads: [] };
  const server: TCPSocketListener<Conn> = Bun.listen<Conn>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        seen.connections++;
        socket.data = { received: "", requests: 0 };
      },
      close() {
        seen.closed++;
      },
      data(socket, chunk) {
        socket.data.received += chunk.toString("latin1");
        for (;;) {
          const end = socket.data.received.indexOf("\r\n\r\n");
          if (end < 0) return;
          const head = socket.data.received.slice(0, end);
          const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
          if (socket.data.received.length < end + 4 + length) return;
          seen.heads.push(socket.data.received.slice(0, end + 4 + length));
          socket.data.received = socket.data.received.slice(end + 4 + length);
          answer(socket, head, socket.data.requests++);
        }
      },
    },
  });
  servers.push(server);
  return { port: server.port, seen };
}

const servers: TCPSocketListener<Conn>[] = [];
const clients: UpstreamClient[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) s.stop(true);
});

function client(options?: { idleMs: number }): UpstreamClient {
  const c = new UpstreamClient(options);
  clients.push(c);
  return c;
}

interface Answer extends Omit<UpstreamResponse, "headers"> {
  headers: Headers;
  finished: Promise<void>;
}

function send(c: UpstreamClient, port: number, method = "GET", body: Uint8Array | null = null): Exchange {
  return c.send({ port, method, target: "/x?y=1", headers: [["authorization", "Bearer daemon-token"], ["x-custom", "v"]], body });
}

async function answer(ex: Exchange): Promise<Answer> {
  const res = await ex.response;
  return { ...res, headers: new Headers(res.headers), finished: new Promise<void>((r) => ex.whenOver(r)) };
}

const get = (c: UpstreamClient, port: number, method = "GET", body: Uint8Array | null = null) => answer(send(c, port, method, body));

async function text(res: Answer): Promise<string> {
  if (res.body === null) return "";
  if (res.body instanceof Uint8Array) return new TextDecoder().decode(res.body);
  return new Response(res.body).text();
}

describe("framing", () => {
  test("a length-framed answer; the connection is kept and reused; the head we send is exact", async () => {
    const { port, seen } = rawServer((s) => s.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}"));
    const c = client();
    for (let i = 0; i < 3; i++) {
      const res = await get(c, port);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(await text(res)).toBe('{"ok":true}');
      await res.finished;
    }
    expect(seen.connections).toBe(1);
    expect(seen.heads[0]).toBe(`GET /x?y=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nauthorization: Bearer daemon-token\r\nx-custom: v\r\n\r\n`);
    await get(c, port, "POST", new TextEncoder().encode("héllo"));
    expect(seen.heads[3]).toEndWith("Content-Length: 6\r\n\r\nhéllo".replace("é", "\xc3\xa9"));
    await get(c, port, "POST");
    expect(seen.heads[4]).toEndWith("Content-Length: 0\r\n\r\n");
  });

  test("a chunked answer written a byte at a time, with extensions and trailers, arrives whole; then the connection is reused", async () => {
    const wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: x-t\r\n\r\n5;ext=1\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\nx-t: 1\r\n\r\n";
    const { port, seen } = rawServer(async (s) => {
      for (const ch of wire) {
        s.write(ch);
        s.flush();
        await Bun.sleep(0);
      }
    });
    const c = client();
    const res = await get(c, port);
    expect(res.body).toBeInstanceOf(ReadableStream);
    expect(await text(res)).toBe("hello 0123456789");
    expect(res.headers.has("transfer-encoding")).toBe(false);
    expect(res.headers.has("trailer")).toBe(false);
    await res.finished;
    expect(await text(await get(c, port))).toBe("hello 0123456789");
    expect(seen.connections).toBe(1);
  });

  test("an answer without length or chunking is read to the close, and its connection is not reused", async () => {
    const { port, seen } = rawServer((s) => {
      s.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\npart one, ");
      setTimeout(() => s.end("part two"), 20);
    });
    const c = client();
    expect(await text(await get(c, port))).toBe("part one, part two");
    expect(await text(await get(c, port))).toBe("part one, part two");
    expect(seen.connections).toBe(2);
  });

  test("HEAD, 204 and 304 have no body whatever their Content-Length says; interim 1xx answers are skipped", async () => {
    const { port, seen } = rawServer((s, head) => {
      if (head.startsWith("HEAD")) s.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n");
      else if (head.startsWith("DELETE")) s.write("HTTP/1.1 204 No Content\r\n\r\n");
      else if (head.startsWith("PUT")) s.write("HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n");
      else s.write("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok");
    });
    const c = client();
    const head = await get(c, port, "HEAD");
    expect([head.status, head.body, head.headers.get("content-length")]).toEqual([200, null, "5"]);
    expect((await get(c, port, "DELETE")).status).toBe(204);
    const put = await get(c, port, "PUT", new Uint8Array([1]));
    expect([put.status, put.body]).toEqual([304, null]);
    const post = await get(c, port, "POST", new Uint8Array([1]));
    expect([post.status, await text(post), post.headers.has("link")]).toEqual([201, "ok", false]);
    expect(seen.connections).toBe(1);
  });

  test("hop-by-hop headers and those Connection names are dropped; repeated end-to-end headers are kept", async () => {
    const { port } = rawServer((s) =>
      s.write("HTTP/1.1 302 Found\r\nConnection: keep-alive, X-Hop\r\nKeep-Alive: timeout=5\r\nX-Hop: 1\r\nProxy-Authenticate: Basic\r\nUpgrade: h2c\r\nLocation: /elsewhere\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Length: 0\r\n\r\n"),
    );
    const res = await get(client(), port);
    expect(res.status).toBe(302);
    expect(res.statusText).toBe("Found");
    expect([...new Set(res.headers.keys())].sort()).toEqual(["content-length", "location", "set-cookie"]);
    expect(res.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
  });
});

describe("answers that cannot be framed are refused (EPROTO), never guessed", () => {
  const bad: [string, string][] = [
    ["conflicting Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc"],
    ["a non-numeric Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\nab"],
    ["obsolete line folding", "HTTP/1.1 200 OK\r\nX-A: 1\r\n  folded\r\nContent-Length: 0\r\n\r\n"],
    ["a header name with a space", "HTTP/1.1 200 OK\r\nBad Name: 1\r\nContent-Length: 0\r\n\r\n"],
    ["a garbled status line", "HTTP/2 200 OK\r\nContent-Length: 0\r\n\r\n"],
    ["a switch of protocols", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n"],
    // A bare LF or CR inside a value would split the header when the proxy passes it on (response splitting).
    ["a bare LF inside a header value", "HTTP/1.1 200 OK\r\nX-A: 1\nSet-Cookie: evil=1\r\nContent-Length: 0\r\n\r\n"],
    ["a bare CR inside a header value", "HTTP/1.1 200 OK\r\nX-A: 1\rSet-Cookie: evil=1\r\nContent-Length: 0\r\n\r\n"],
    ["a NUL inside a header value", "HTTP/1.1 200 OK\r\nX-A: 1\u0000\r\nContent-Length: 0\r\n\r\n"],
    // Found by the differential fuzz against llhttp (differential.test.ts): each is refused by llhttp too.
    ["Transfer-Encoding and Content-Length together", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 7\r\n\r\n2\r\nab\r\n0\r\n\r\n"],
    ["a repeated Content-Length, even with the same value", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nab"],
    ["a tab after the Transfer-Encoding (llhttp would read to the close)", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\t\r\n\r\n2\r\nab\r\n0\r\n\r\n"],
    ["a DEL inside a header value", "HTTP/1.1 200 OK\r\nX-A: 1\u007f\r\nContent-Length: 0\r\n\r\n"],
    ["a Content-Length on an interim response", "HTTP/1.1 100 Continue\r\nContent-Length: 5\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"],
    ["a status code below 100", "HTTP/1.1 099 Odd\r\nContent-Length: 0\r\n\r\n"],
  ];
  for (const [name, wire] of bad) {
    test(name, async () => {
      const { port } = rawServer((s) => s.write(wire));
      const error = await get(client(), port).catch((e) => e);
      expect(error).toBeInstanceOf(UpstreamError);
      expect((error as UpstreamError).code).toBe("EPROTO");
    });
  }

  test("a bad chunk size in the middle of a body errors the body stream; the connection is dropped", async () => {
    let answered = 0;
    const { port, seen } = rawServer((s) => {
      if (answered++ === 0) {
        s.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n");
        setTimeout(() => s.write("zz\r\nnope\r\n"), 20);
      } else s.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    });
    const c = client();
    const res = await get(c, port);
    expect(await text(res).catch((e) => e)).toBeInstanceOf(UpstreamError);
    expect(await text(await get(c, port))).toBe("ok");
    expect(seen.connections).toBe(2);
  });

  test("a daemon that closes in the middle of a body errors the stream (ECONNRESET or EPROTO, never a short success)", async () => {
    const { port } = rawServer((s) => {
      s.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this");
      setTimeout(() => s.end(), 20);
    });
    const res = await get(client(), port);
    const error = await text(res).catch((e) => e);
    expect(error).toBeInstanceOf(UpstreamError);
  });
});

describe("connections", () => {
  test("an idle pooled connection is closed after the idle time; the next request opens a fresh one", async () => {
    const { port, seen } = rawServer((s) => s.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"));
    const c = client({ idleMs: 50 });
    expect(await text(await get(c, port))).toBe("ok");
    for (let i = 0; i < 100 && seen.closed === 0; i++) await Bun.sleep(20);
    expect(seen.closed).toBe(1);
    expect(await text(await get(c, port))).toBe("ok");
    expect(seen.connections).toBe(2);
  });

  test("nothing listening: ECONNREFUSED", async () => {
    const { port } = rawServer(() => {});
    servers.pop()!.stop(true);
    const error = await get(client(), port).catch((e) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).code).toBe("ECONNREFUSED");
  });

  test("a kept-alive connection the daemon drops unanswered: GET is sent again on a fresh one, POST fails", async () => {
    // Every connection answers its first request and silently closes on its second.
    const { port, seen } = rawServer((s, _head, i) => {
      if (i === 0) s.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
      else s.end();
    });
    const c = client();
    expect(await text(await get(c, port))).toBe("ok");
    expect(await text(await get(c, port))).toBe("ok");
    expect(seen.connections).toBe(2);
    const error = await get(c, port, "POST", new Uint8Array([1])).catch((e) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).unanswered).toBe(true);
  });

  test("an abort while waiting for the head rejects with its error and closes the connection", async () => {
    let closed = false;
    const { port } = rawServer((s) => {
      const timer = setInterval(() => {
        if (s.readyState !== 1) {
          closed = true;
          clearInterval(timer);
        }
      }, 5);
    });
    const ex = send(client(), port);
    await Bun.sleep(30);
    ex.abort(new DOMException("upstream timeout", "TimeoutError"));
    const error = await ex.response.catch((e) => e);
    expect((error as Error).name).toBe("TimeoutError");
    for (let i = 0; i < 100 && !closed; i++) await Bun.sleep(10);
    expect(closed).toBe(true);
  });

  test("a body nobody reads stops the daemon's socket (backpressure); read later, every byte arrives in order", async () => {
    const TOTAL = 96 * 1024 * 1024;
    const block = new Uint8Array(64 * 1024).map((_, i) => i % 251);
    let written = 0;
    const { port } = rawServer((s) => {
      s.write(`HTTP/1.1 200 OK\r\nContent-Length: ${TOTAL}\r\n\r\n`);
      const pump = () => {
        while (written < TOTAL) {
          const start = written % block.length;
          const chunk = block.subarray(start);
          const n = s.write(chunk);
          if (n > 0) written += n;
          if (n < chunk.length) {
            setTimeout(pump, 5);
            return;
          }
        }
      };
      pump();
    });
    const res = await get(client(), port);
    await Bun.sleep(500);
    const stalledAt = written;
    await Bun.sleep(300);
    // Loopback socket buffers can grow to tcp_rmem + tcp_wmem (36 MiB by default); the client's queue holds
    // 256 KiB more; the rest waits in the daemon.
    expect(stalledAt).toBeLessThan(64 * 1024 * 1024);
    expect(written).toBe(stalledAt);
    let offset = 0;
    let intact = true;
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (let i = 0; i < value.length; i++) if (value[i] !== (offset + i) % (64 * 1024) % 251) intact = false;
      offset += value.length;
    }
    expect(offset).toBe(TOTAL);
    expect(intact).toBe(true);
  });
});
