// The reference "everything" server over stdio, through the manager: tools, results, timeouts, progress,
// block_list, and the child process's end.
import { afterEach, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import type { McpChangeEvent, McpManager, McpProgressEvent } from "../../src/mcp/index.ts";
import { context, EVERYTHING_BIN, pidsWithMarker, runNamed, testManager } from "./helpers.ts";

let open: McpManager[] = [];
afterEach(async () => {
  await Promise.all(open.map((m) => m.close()));
  open = [];
});

function everything(extra: Record<string, unknown> = {}, marker = randomUUID()) {
  const t = testManager({
    ev: { transport: "stdio", command: EVERYTHING_BIN, args: ["stdio"], pass_env: ["PATH"], env: { MCP_TEST_MARKER: marker }, ...extra } as never,
  });
  open.push(t.manager);
  return { ...t, marker };
}

describe("everything server over stdio", () => {
  test("connects, lists its tools as mcp__ev__*, and passes input schemas through", async () => {
    const { manager } = everything();
    const events: McpChangeEvent[] = [];
    manager.onChange((e) => events.push(e));
    await manager.start();
    const [status] = manager.servers();
    expect(status).toMatchObject({ name: "ev", transport: "stdio", state: "connected" });
    const names = manager.tools().map((t) => t.name);
    expect(names).toContain("mcp__ev__echo");
    expect(names).toContain("mcp__ev__get-sum");
    expect(status!.toolCount).toBe(names.filter((n) => n.startsWith("mcp__ev__")).length); // plus the session-wide resource tools
    expect(events.map((e) => e.server.state)).toEqual(["connecting", "connected"]);
    const echo = manager.tools().find((t) => t.name === "mcp__ev__echo")!;
    expect(JSON.parse(JSON.stringify(echo.inputSchema))).toMatchObject({ type: "object", properties: { message: { type: "string" } }, required: ["message"] });
  });

  test("calls echo and get-sum", async () => {
    const { manager } = everything();
    await manager.start();
    expect((await runNamed(manager, "mcp__ev__echo", { message: "hello there" })).output).toBe("Echo: hello there");
    const sum = await runNamed(manager, "mcp__ev__get-sum", { a: 2, b: 40 });
    expect(sum.isError).toBeUndefined();
    expect(sum.output).toContain("42");
  });

  test("invalid arguments come back as a tool error the model can act on", async () => {
    const { manager } = everything();
    await manager.start();
    const result = await runNamed(manager, "mcp__ev__get-sum", { a: "two" });
    expect(result.isError).toBe(true);
    expect(result.output).toBe("Invalid arguments for `mcp__ev__get-sum`: the input must have required property 'b', a must be number. Fix the arguments and call `mcp__ev__get-sum` again.");
  });

  test("an image reaches a vision model as an image and any other model as a note", async () => {
    const { manager } = everything();
    await manager.start();
    const seen = await runNamed(manager, "mcp__ev__get-tiny-image", {}, context(true));
    expect(seen.images).toHaveLength(1);
    expect(seen.images![0]!.mediaType).toBe("image/png");
    expect(Buffer.from(seen.images![0]!.data, "base64").subarray(1, 4).toString()).toBe("PNG");
    const blind = await runNamed(manager, "mcp__ev__get-tiny-image", {}, context(false));
    expect(blind.images).toBeUndefined();
    expect(blind.output).toContain("[image (image/png) not shown: this model cannot see images]");
  });

  test("structured content reaches the model once, as JSON", async () => {
    const { manager } = everything();
    await manager.start();
    const result = await runNamed(manager, "mcp__ev__get-structured-content", { location: "New York" });
    const parsed = JSON.parse(result.output) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(expect.arrayContaining(["temperature", "conditions", "humidity"]));
  });

  test("default_timeout_seconds cancels a long call with an error result; the server stays usable", async () => {
    const { manager } = everything({ default_timeout_seconds: 1 });
    await manager.start();
    const result = await runNamed(manager, "mcp__ev__trigger-long-running-operation", { duration: 30, steps: 30 });
    expect(result.isError).toBe(true);
    expect(result.output).toContain('no answer within 1 s (default_timeout_seconds of "ev"); the call was cancelled');
    expect((await runNamed(manager, "mcp__ev__echo", { message: "still here" })).output).toBe("Echo: still here");
  });

  test("the engine's abort signal cancels a call", async () => {
    const { manager } = everything();
    await manager.start();
    const abort = new AbortController();
    const running = runNamed(manager, "mcp__ev__trigger-long-running-operation", { duration: 30, steps: 30 }, context(), abort.signal);
    setTimeout(() => abort.abort(), 300);
    const result = await running;
    expect(result).toMatchObject({ isError: true, output: "`mcp__ev__trigger-long-running-operation` was cancelled." });
  });

  test("progress notifications of a long-running operation reach onProgress", async () => {
    const { manager } = everything();
    await manager.start();
    const progress: McpProgressEvent[] = [];
    manager.onProgress((e) => progress.push(e));
    const result = await runNamed(manager, "mcp__ev__trigger-long-running-operation", { duration: 1, steps: 3 });
    expect(result.isError).toBeUndefined();
    // The server does not await its notifications, so the last one may come after the result.
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.slice(0, 2).map((p) => [p.tool, p.progress, p.total])).toEqual([
      ["trigger-long-running-operation", 1, 3],
      ["trigger-long-running-operation", 2, 3],
    ]);
  });

  test("block_list hides a tool from the tool set and the count", async () => {
    const { manager } = everything({ block_list: ["mcp__ev__get-env", "mcp__ev__echo"] });
    await manager.start();
    const names = manager.tools().map((t) => t.name);
    expect(names).not.toContain("mcp__ev__get-env");
    expect(names).not.toContain("mcp__ev__echo");
    expect(names).toContain("mcp__ev__get-sum");
    expect(manager.servers()[0]!.toolCount).toBe(names.filter((n) => n.startsWith("mcp__ev__")).length);
  });

  test("stderr goes to the session log by default, and not when log_stderr is false", async () => {
    const on = everything();
    await on.manager.start();
    expect(on.logs).toContainEqual({ server: "ev", source: "stderr", level: "info", message: "Starting default (STDIO) server..." });
    const off = everything({ log_stderr: false });
    await off.manager.start();
    expect(off.logs.filter((l) => l.source === "stderr")).toEqual([]);
  });

  test("default_enabled false stays listed and disconnected until enabled; disable and reconnect work", async () => {
    const { manager, marker } = everything({ default_enabled: false });
    await manager.start();
    expect(manager.servers()).toEqual([{ name: "ev", transport: "stdio", state: "disabled", toolCount: 0 }]);
    expect(manager.tools()).toEqual([]);
    expect(pidsWithMarker(marker)).toEqual([]);
    expect((await manager.enable("ev")).state).toBe("connected");
    const [first] = pidsWithMarker(marker);
    expect(first).toBeGreaterThan(0);
    expect((await manager.reconnect("ev")).state).toBe("connected");
    expect(pidsWithMarker(marker)).not.toContain(first!);
    expect(await manager.disable("ev")).toEqual({ name: "ev", transport: "stdio", state: "disabled", toolCount: 0 });
    expect(pidsWithMarker(marker)).toEqual([]);
    expect(() => manager.enable("nope")).toThrow('no tool server named "nope"; configured: ev');
  });

  test("close() leaves no child process behind", async () => {
    const { manager, marker } = everything();
    await manager.start();
    expect(pidsWithMarker(marker)).toHaveLength(1);
    await manager.close();
    expect(pidsWithMarker(marker)).toEqual([]);
  });

  test("a command that does not exist fails the server with a reason", async () => {
    const { manager } = testManager({ bad: { transport: "stdio", command: "/nonexistent/mcp-server" } as never });
    open.push(manager);
    await manager.start();
    expect(manager.servers()[0]).toMatchObject({ state: "failed", reason: "cannot start `/nonexistent/mcp-server`: command not found" });
  });

  test("a server that exits fails with its exit code", async () => {
    const { manager } = testManager({ quits: { transport: "stdio", command: "/bin/sh", args: ["-c", "read line; exit 3"] } as never });
    open.push(manager);
    await manager.start();
    expect(manager.servers()[0]!.state).toBe("failed");
    expect(manager.servers()[0]!.reason).toBe("the server process exited (code 3); its stderr is in the session log");
  });
});
