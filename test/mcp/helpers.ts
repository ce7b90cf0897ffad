// Shared pieces of the MCP tests: the reference servers' entry points, a manager with captured log lines,
// free 127.0.0.1 ports, and child servers started and stopped per test.
import { join } from "node:path";
import { createMcpManager, type McpLogEntry, type McpManager, type McpServerConfig } from "../../src/mcp/index.ts";
import type { ToolContext, ToolResult } from "../../src/tools/tool.ts";
import { runningWithEnv } from "../helpers/processes.ts";

const modules = join(import.meta.dir, "..", "..", "node_modules");
export const EVERYTHING_BIN = join(modules, ".bin", "mcp-server-everything");
export const FILESYSTEM_BIN = join(modules, ".bin", "mcp-server-filesystem");
export const SDK_EXAMPLE_SERVER = join(modules, "@modelcontextprotocol", "sdk", "dist", "esm", "examples", "server", "simpleStreamableHttp.js");
export const GROWING_SERVER = join(import.meta.dir, "fixtures", "growing-server.ts");

export interface TestManager {
  manager: McpManager;
  logs: McpLogEntry[];
}

export function testManager(servers: Record<string, McpServerConfig>, extra: { dataRoot?: string; env?: Record<string, string | undefined>; now?: () => number; roots?: string[] } = {}): TestManager {
  const logs: McpLogEntry[] = [];
  const manager = createMcpManager({
    servers,
    dataRoot: extra.dataRoot ?? join(process.env.XDG_DATA_HOME!, "agent"),
    clock: { now: extra.now ?? (() => Date.now()) },
    log: (entry) => logs.push(entry),
    cwd: process.cwd(),
    env: extra.env,
    roots: extra.roots,
  });
  return { manager, logs };
}

export function context(supportsVision = false): ToolContext {
  return { supportsVision } as ToolContext;
}

/** Runs an engine tool of the manager by name. */
export async function runNamed(manager: McpManager, name: string, input: unknown, ctx = context(), signal = new AbortController().signal): Promise<ToolResult> {
  const tool = manager.tools().find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}; have ${manager.tools().map((t) => t.name).join(", ")}`);
  const { runTool } = await import("../../src/tools/tool.ts");
  return runTool(tool, input, ctx, signal);
}

export async function freePort(): Promise<number> {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = server.port!;
  await server.stop(true);
  return port;
}

/** Waits (polling) for a condition that another process brings about; fails after `ms`. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await Bun.sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A server process on 127.0.0.1 (node or bun), ready when `url` answers. */
export async function startHttpServer(argv: string[], env: Record<string, string>, readyUrl: string): Promise<Bun.Subprocess> {
  const child = Bun.spawn(argv, { env: { ...process.env, ...env }, stdout: "ignore", stderr: "ignore" });
  await waitFor(`${argv.join(" ")} to listen`, async () => {
    try {
      await fetch(readyUrl, { method: "GET" });
      return true;
    } catch {
      return false;
    }
  });
  return child;
}


/** Pids of live processes whose environment holds `MCP_TEST_MARKER=<marker>` (read from /proc). */
export function pidsWithMarker(marker: string): number[] {
  return runningWithEnv(`MCP_TEST_MARKER=${marker}`);
}
