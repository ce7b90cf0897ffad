// Tool-list changes and the end of stdio children: a server that ignores its closed stdin, and a session
// process that is killed outright.
import { afterEach, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type { McpChangeEvent, McpManager } from "../../src/mcp/index.ts";
import { EVERYTHING_BIN, GROWING_SERVER, pidsWithMarker, runNamed, testManager, waitFor } from "./helpers.ts";

let open: McpManager[] = [];
afterEach(async () => {
  await Promise.all(open.map((m) => m.close()));
  open = [];
});

function growing(env: Record<string, string> = {}) {
  const marker = randomUUID();
  const t = testManager({ grow: { transport: "stdio", command: process.execPath, args: [GROWING_SERVER], env: { MCP_TEST_MARKER: marker, ...env } } as never });
  open.push(t.manager);
  return { ...t, marker };
}

describe("tool list changes", () => {
  test("a tools/list_changed notification refreshes the tool set and emits a change", async () => {
    const { manager } = growing();
    await manager.start();
    expect(manager.tools().map((t) => t.name)).toEqual(["mcp__grow__add-tool"]);
    const changes: McpChangeEvent[] = [];
    manager.onChange((e) => changes.push(e));
    expect((await runNamed(manager, "mcp__grow__add-tool", {})).output).toBe("added extra-1");
    await waitFor("the refreshed tool list", () => changes.length > 0);
    expect(changes[0]).toEqual({ type: "mcp_server_changed", server: { name: "grow", transport: "stdio", state: "connected", toolCount: 2 }, toolsChanged: true });
    expect(manager.tools().map((t) => t.name)).toEqual(["mcp__grow__add-tool", "mcp__grow__extra-1"]);
    expect((await runNamed(manager, "mcp__grow__extra-1", {})).output).toBe("extra-1");
  });
});

describe("no orphaned children", () => {
  test("close() kills a server that keeps running after its stdin closes", async () => {
    const { manager, marker } = growing({ IGNORE_STDIN_EOF: "1" });
    await manager.start();
    expect(pidsWithMarker(marker)).toHaveLength(1);
    await manager.close();
    expect(pidsWithMarker(marker)).toEqual([]);
  });

  test("a server started through a wrapper (sh) is gone with its wrapper", async () => {
    const marker = randomUUID();
    const { manager } = testManager({
      wrapped: { transport: "stdio", command: "/bin/sh", args: ["-c", `"${process.execPath}" "${GROWING_SERVER}"`], env: { MCP_TEST_MARKER: marker, IGNORE_STDIN_EOF: "1" } } as never,
    });
    open.push(manager);
    await manager.start();
    expect(pidsWithMarker(marker).length).toBeGreaterThanOrEqual(1);
    await manager.close();
    expect(pidsWithMarker(marker)).toEqual([]);
  });

  test("when the session process is SIGKILLed, the server sees its stdin close and exits", async () => {
    const marker = randomUUID();
    const holder = Bun.spawn([process.execPath, join(import.meta.dir, "fixtures", "session-holder.ts"), EVERYTHING_BIN, marker, "stdio"], {
      stdout: "pipe",
      stderr: "inherit",
    });
    const reader = holder.stdout.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toBe("ready\n");
    expect(pidsWithMarker(marker)).toHaveLength(1);
    holder.kill("SIGKILL");
    await holder.exited;
    await waitFor("the orphaned server to exit", () => pidsWithMarker(marker).length === 0);
  });

  test("when the session process is SIGKILLed, a server that ignores its closed stdin is ended too (watchdog)", async () => {
    const marker = randomUUID();
    const holder = Bun.spawn([process.execPath, join(import.meta.dir, "fixtures", "session-holder.ts"), process.execPath, marker, GROWING_SERVER], {
      stdout: "pipe",
      stderr: "inherit",
      env: { ...process.env, HOLDER_ENV: "IGNORE_STDIN_EOF=1" },
    });
    const { value } = await holder.stdout.getReader().read();
    expect(new TextDecoder().decode(value)).toBe("ready\n");
    const before = pidsWithMarker(marker);
    expect(before.length).toBeGreaterThanOrEqual(1);
    holder.kill("SIGKILL");
    await holder.exited;
    await waitFor("the busy server to be ended", () => pidsWithMarker(marker).length === 0, 8000);
  }, 15_000);
});
