// Bodies the gateway will not take get an HTTP answer with the JSON error envelope, never a silent close:
// 413 for a chunked body over the route's limit (API routes and the session proxy included), 408 for a body
// that stalls or trickles past its deadline.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { API_BODY_LIMIT } from "../../src/gateway/server/headers.ts";
import { machineToken } from "./sessions/helpers.ts";
import { startTestGateway, type TestGateway, sqlGet } from "./helpers.ts";

// `gw` has short body deadlines (1 s idle, 2.5 s in all) for the 408 tests. Its 1 s idle timeout also closes,
// unanswered, a connection whose request takes over a second to handle (a loaded machine, a busy database),
// so a body that must be read whole is sent to `plain`, which has the default deadlines.
let gw: TestGateway;
let plain: TestGateway;
let token: string;
let plainToken: string;
beforeAll(async () => {
  gw = await startTestGateway("", { idleTimeoutSecs: 1, bodyTotalMs: 2500 });
  token = await machineToken(gw);
  plain = await startTestGateway();
  plainToken = await machineToken(plain);
});
afterAll(async () => {
  await gw.stop();
  await plain.stop();
});

/** Writes `parts` with `gapMs` between them; resolves with everything received until the server closes. */
function exchange(parts: (string | Buffer)[], gapMs = 0, port = gw.server.port!): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    const timer = setTimeout(() => socket.destroy(), 10_000);
    socket.on("data", (chunk) => (received += chunk.toString("latin1")));
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.on("error", () => {});
    let i = 0;
    const next = () => {
      if (i >= parts.length || socket.destroyed) return;
      socket.write(parts[i++]!);
      setTimeout(next, gapMs);
    };
    next();
  });
}

const head = (path: string, extra: string, bearer = token) => `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${bearer}\r\nContent-Type: application/json\r\n${extra}\r\n`;

function chunk(size: number): Buffer {
  return Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), Buffer.alloc(size, 0x20), Buffer.from("\r\n")]);
}

describe("request bodies", () => {
  for (const path of ["/api/v1/configurations", "/api/v1/sessions/ses_00000000000000000000000000/proxy/prompt"]) {
    test(`a chunked body over the limit on ${path.includes("proxy") ? "the session proxy" : "an API route"} gets 413 with a JSON body`, async () => {
      const parts: (string | Buffer)[] = [head(path, "Transfer-Encoding: chunked\r\n")];
      for (let sent = 0; sent <= API_BODY_LIMIT; sent += 64 * 1024) parts.push(chunk(64 * 1024));
      parts.push("0\r\n\r\n");
      const received = await exchange(parts);
      expect(received).toStartWith("HTTP/1.1 413");
      expect(received).toContain('"error":"payload_too_large"');
    });
  }

  test("a declared length over the limit is refused before any byte of the body is read", async () => {
    const received = await exchange([head("/api/v1/configurations", `Content-Length: ${API_BODY_LIMIT + 1}\r\n`)]);
    expect(received).toStartWith("HTTP/1.1 413");
    expect(received).toContain('"error":"payload_too_large"');
  });

  test("a body that stops arriving gets 408 with a JSON body", async () => {
    const received = await exchange([head("/api/v1/configurations", "Content-Length: 100\r\n"), '{"name":']);
    expect(received).toStartWith("HTTP/1.1 408");
    expect(received).toContain('"error":"request_timeout"');
  });

  test("a body trickled byte by byte past its deadline gets 408 (the idle timeout alone would never end it)", async () => {
    const body = '{"name":"slow","config_content":"x: 1"}';
    const parts = [head("/api/v1/configurations", `Content-Length: ${body.length}\r\n`), ...body.split("")];
    const received = await exchange(parts, 300);
    expect(received).toStartWith("HTTP/1.1 408");
    expect((await sqlGet(gw.ctx.db, "SELECT count(*) AS n FROM configurations"))).toEqual({ n: 0 });
  }, 20_000);

  test("a chunked body within the limit is read whole and reaches the route", async () => {
    const body = JSON.stringify({ name: "chunky", config_format: "yaml", config_content: "default_permission_matcher: standard\n" });
    const received = await exchange([head("/api/v1/configurations", "Transfer-Encoding: chunked\r\nConnection: close\r\n", plainToken), `${body.length.toString(16)}\r\n${body}\r\n`, "0\r\n\r\n"], 50, plain.server.port!);
    expect(received).toStartWith("HTTP/1.1 201");
  });

  test("a JSON body nested deeper than 64 levels is refused with 400 before any parser sees it; 64 levels are parsed", async () => {
    const nested = (n: number) => JSON.stringify({ name: "deep", config_format: "yaml", config_content: "x: 1", extra: JSON.parse("[".repeat(n) + "]".repeat(n)) });
    for (const n of [65, 20_000]) {
      const res = await fetch(`${plain.url}/api/v1/configurations`, { method: "POST", headers: { Authorization: `Bearer ${plainToken}`, "Content-Type": "application/json" }, body: `{"name":"deep","config_format":"yaml","config_content":"x: 1","extra":${"[".repeat(n)}${"]".repeat(n)}}` });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: "bad_request", message: expect.stringContaining("64 levels") });
    }
    // Brackets inside strings do not count.
    const inString = await fetch(`${plain.url}/api/v1/configurations`, { method: "POST", headers: { Authorization: `Bearer ${plainToken}`, "Content-Type": "application/json" }, body: JSON.stringify({ name: "brackets", config_format: "yaml", config_content: `x: "${"[".repeat(500)}"\n` }) });
    expect(inString.status).toBe(201);
    expect(nested(10).length).toBeGreaterThan(0);
  });
});
