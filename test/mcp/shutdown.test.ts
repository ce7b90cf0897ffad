// The end of a session at remote servers (issue 23 item 5): closing the manager ends each HTTP session
// with a DELETE carrying its session id, so the server frees it at once instead of at its idle timeout.
import { afterEach, describe, expect, test } from "bun:test";
import { freePort, SDK_EXAMPLE_SERVER, testManager, waitFor } from "./helpers.ts";

let server: Bun.Subprocess<"ignore", "pipe", "inherit"> | undefined;
afterEach(() => {
  server?.kill();
  server = undefined;
});

describe("HTTP session shutdown", () => {
  test("close() sends DELETE for the session; the SDK's example server sees its termination", async () => {
    const port = await freePort();
    server = Bun.spawn([Bun.which("node")!, SDK_EXAMPLE_SERVER], { env: { ...process.env, MCP_PORT: String(port) }, stdout: "pipe", stderr: "inherit" });
    let out = "";
    void (async () => {
      for await (const chunk of server!.stdout) out += new TextDecoder().decode(chunk);
    })();
    await waitFor("the example server to listen", () => out.includes(String(port)));
    const { manager } = testManager({ ex: { transport: "http", url: `http://127.0.0.1:${port}/mcp` } as never });
    await manager.start();
    expect(manager.servers()[0]!.state).toBe("connected");
    const session = /Session initialized with ID: (\S+)/.exec(out)?.[1];
    expect(session).toBeDefined();
    await manager.close();
    await waitFor("the termination request", () => out.includes(`Received session termination request for session ${session}`), 5000);
  }, 30_000);
});
