// Slow or silent clients: a connection that stops sending in the middle of a request, or sits idle after
// one, is closed by the server after the idle timeout (15 s by default; shortened here so the test is quick).
// Bun (uWS) handles stalled request headers with its own ~10 s header timer, whatever idleTimeout says.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "./helpers.ts";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway("", { idleTimeoutSecs: 1 });
});
afterAll(() => gw.stop());

/** Opens a raw TCP connection, sends `text`, and resolves with everything received once the server closes. */
function rawExchange(text: string): Promise<string> {
  const port = Number(new URL(gw.url).port);
  return new Promise((resolve, reject) => {
    let received = "";
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open: (socket) => void socket.write(text),
        data: (_socket, chunk) => {
          received += chunk.toString();
        },
        close: () => resolve(received),
        error: (_socket, error) => reject(error),
      },
    }).catch(reject);
  });
}

describe("idle timeout", () => {
  test("a client that stops in the middle of its request headers is disconnected without an answer", async () => {
    const received = await rawExchange("GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
    expect(received).toBe("");
  }, 30_000);

  test("a client that announces a body and never sends it is disconnected", async () => {
    const received = await rawExchange("POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nusername=a");
    expect(received).not.toContain("303");
  });

  test("an idle keep-alive connection is closed after its answer", async () => {
    const received = await rawExchange("GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    expect(received).toStartWith("HTTP/1.1 200");
    expect(received).toContain('"status":"ok"');
  });
});
