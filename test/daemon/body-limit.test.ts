// A request body over the daemon's limit (64 MiB) is refused with a JSON 413 in the error envelope, whether
// it declares its length or comes chunked; the server's own bodiless 413 is never what a client sees.
// (Issue 26 §4.) Raw HTTP over a socket, so the test controls the framing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { connect } from "node:net";
import { DAEMON_BODY_LIMIT } from "../../src/daemon/edge.ts";
import { startHarness, TOKEN, type Harness } from "./harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

/** Sends `head` then `body` chunks (written as fast as the socket takes them) and returns the answer's head and body. */
function exchange(head: string, body: (write: (b: Buffer | string) => boolean) => void): Promise<{ status: number; headers: string; body: string }> {
  const port = Number(new URL(h.url).port);
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    socket.on("data", (d) => {
      text += d.toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) return;
      const length = Number(/content-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      if (text.length >= end + 4 + length) {
        socket.destroy();
        resolve({ status: Number(text.slice(9, 12)), headers: text.slice(0, end), body: text.slice(end + 4, end + 4 + length) });
      }
    });
    // The daemon may close while the test still writes (EPIPE): what counts is the answer read before the close.
    socket.on("error", () => {});
    socket.on("close", () => {
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) reject(new Error(`closed without an answer (${text.length} bytes read)`));
      else resolve({ status: Number(text.slice(9, 12)), headers: text.slice(0, end), body: text.slice(end + 4) });
    });
    socket.write(head);
    body((b) => !socket.destroyed && socket.write(b));
  });
}

const headOf = (framing: string) => `POST /prompt HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\n${framing}\r\n`;

test("a declared length over the limit: JSON 413 before the body is read", async () => {
  const res = await exchange(headOf(`Content-Length: ${DAEMON_BODY_LIMIT + 1}\r\n`), (write) => void write('{"text":"'));
  expect(res.status).toBe(413);
  expect(res.headers).toMatch(/content-type: application\/json/i);
  expect(JSON.parse(res.body)).toMatchObject({ code: "payload_too_large", error: "payload_too_large" });
});

test("a chunked body that grows over the limit: JSON 413", async () => {
  const chunk = Buffer.alloc(1024 * 1024, "a");
  const res = await exchange(headOf("Transfer-Encoding: chunked\r\n"), (write) => {
    let sent = 0;
    const pump = () => {
      while (sent <= DAEMON_BODY_LIMIT) {
        sent += chunk.length;
        write(`${chunk.length.toString(16)}\r\n`);
        write(chunk);
        if (!write("\r\n")) return setTimeout(pump, 5);
      }
    };
    write('9\r\n{"text":"\r\n');
    pump();
  });
  expect([res.status, res.body]).toEqual([413, expect.stringContaining("payload_too_large")]);
}, 30_000);

test("a body under the limit is still taken", async () => {
  const res = await h.post("/prompt", { text: "hello" });
  expect(res.status).toBe(202);
});
