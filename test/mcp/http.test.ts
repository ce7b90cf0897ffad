// Streamable HTTP: the everything server (headers on every request, seen through a recording proxy) and
// the SDK's example server (a restart expires the session: reinit or a surfaced failure).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Server, Subprocess } from "bun";
import type { McpChangeEvent, McpManager } from "../../src/mcp/index.ts";
import { EVERYTHING_BIN, freePort, runNamed, SDK_EXAMPLE_SERVER, startHttpServer, testManager } from "./helpers.ts";

let open: McpManager[] = [];
afterEach(async () => {
  await Promise.all(open.map((m) => m.close()));
  open = [];
});

describe("everything server over streamable HTTP", () => {
  let server: Subprocess;
  let proxy: Server<undefined>;
  const seen: Headers[] = [];

  beforeAll(async () => {
    const port = await freePort();
    server = await startHttpServer([Bun.which("node")!, EVERYTHING_BIN, "streamableHttp"], { PORT: String(port) }, `http://127.0.0.1:${port}/mcp`);
    // Records each request's headers on its way to the real server.
    proxy = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      idleTimeout: 0,
      async fetch(request) {
        seen.push(new Headers(request.headers));
        const url = new URL(request.url);
        const headers = new Headers(request.headers);
        headers.delete("host");
        return fetch(`http://127.0.0.1:${port}${url.pathname}${url.search}`, {
          method: request.method,
          headers,
          body: request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer(),
        });
      },
    });
  });
  afterAll(async () => {
    await proxy.stop(true);
    server.kill();
    await server.exited;
  });

  test("lists and calls tools, sending the configured headers and authorization value on every request", async () => {
    const { manager } = testManager({
      remote: {
        transport: "http",
        url: `http://127.0.0.1:${proxy.port}/mcp`,
        headers: { "X-Team": "blue", Authorization: "Bearer overridden" },
        auth: { type: "authorization-header", value: "Token s3cret-value" },
      } as never,
    });
    open.push(manager);
    seen.length = 0;
    await manager.start();
    expect(manager.servers()[0]).toMatchObject({ state: "connected", transport: "http" });
    expect(manager.tools().map((t) => t.name)).toContain("mcp__remote__get-sum");
    expect((await runNamed(manager, "mcp__remote__echo", { message: "over http" })).output).toBe("Echo: over http");
    expect((await runNamed(manager, "mcp__remote__get-sum", { a: 1, b: 2 })).output).toContain("3");
    expect(seen.length).toBeGreaterThanOrEqual(4);
    for (const headers of seen) {
      expect(headers.get("x-team")).toBe("blue");
      expect(headers.get("authorization")).toBe("Token s3cret-value");
    }
  });

  test("a wrong URL path fails the server with the HTTP status, and no secret in the reason", async () => {
    const { manager } = testManager({
      remote: { transport: "http", url: `http://127.0.0.1:${proxy.port}/nope`, auth: { type: "authorization-header", value: "Token s3cret-value" } } as never,
    });
    open.push(manager);
    await manager.start();
    const status = manager.servers()[0]!;
    expect(status.state).toBe("failed");
    expect(status.reason).toBe("HTTP 404 from the server");
    expect(status.reason).not.toContain("s3cret-value");
  });

  test("a URL that is not http(s) is refused before any request", async () => {
    const { manager } = testManager({ remote: { transport: "http", url: "ftp://127.0.0.1/mcp" } as never });
    open.push(manager);
    await manager.start();
    expect(manager.servers()[0]).toMatchObject({ state: "failed", reason: "mcp_servers.remote.url uses ftp; expected http or https" });
  });
});

describe("expired sessions (SDK example server restarted)", () => {
  let port: number;
  let server: Subprocess | undefined;
  const start = async () => {
    server = await startHttpServer([Bun.which("node")!, SDK_EXAMPLE_SERVER], { MCP_PORT: String(port) }, `http://127.0.0.1:${port}/mcp`);
  };
  const stop = async () => {
    server?.kill();
    await server?.exited;
  };
  beforeAll(async () => {
    port = await freePort();
  });
  afterEach(stop);

  test("reinit_on_expired_session: true initializes a new session and the call succeeds", async () => {
    await start();
    const { manager, logs } = testManager({ demo: { transport: "http", url: `http://127.0.0.1:${port}/mcp`, reinit_on_expired_session: true } as never });
    open.push(manager);
    await manager.start();
    expect((await runNamed(manager, "mcp__demo__greet", { name: "Ada" })).output).toBe("Hello, Ada!");
    const events: McpChangeEvent[] = [];
    manager.onChange((e) => events.push(e));
    await stop();
    await start();
    expect((await runNamed(manager, "mcp__demo__greet", { name: "Bea" })).output).toBe("Hello, Bea!");
    expect(manager.servers()[0]!.state).toBe("connected");
    expect(events.map((e) => e.server.state)).toContain("connecting");
    expect(logs.map((l) => l.message)).toContain("session expired; initializing a new one");
  });

  test("without reinit the expiry surfaces: the call fails and the server is failed until reconnected", async () => {
    await start();
    const { manager } = testManager({ demo: { transport: "http", url: `http://127.0.0.1:${port}/mcp` } as never });
    open.push(manager);
    await manager.start();
    expect((await runNamed(manager, "mcp__demo__greet", { name: "Ada" })).output).toBe("Hello, Ada!");
    await stop();
    await start();
    const result = await runNamed(manager, "mcp__demo__greet", { name: "Bea" });
    expect(result.isError).toBe(true);
    expect(result.output).toContain("the server ended the session (HTTP 404)");
    expect(manager.servers()[0]).toMatchObject({ state: "failed", reason: "the server ended the session (HTTP 404); reconnect it with /mcp, or set reinit_on_expired_session" });
    expect((await manager.reconnect("demo")).state).toBe("connected");
    expect((await runNamed(manager, "mcp__demo__greet", { name: "Cy" })).output).toBe("Hello, Cy!");
  });
});
