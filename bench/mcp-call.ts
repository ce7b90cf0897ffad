// Round trip of sequential `echo` calls to the reference "everything" MCP server over stdio: through our
// manager (engine tool -> manager -> SDK client -> our stdio transport) against the bare SDK client with
// the SDK's own stdio transport, in the same run. Target: our overhead at most 10% over the bare SDK.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createMcpManager } from "../src/mcp/index.ts";
import { runTool, type ToolContext } from "../src/tools/tool.ts";

const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const ROUNDS = 3;
const BIN = resolve(import.meta.dir, "..", "node_modules", ".bin", "mcp-server-everything");

async function ours(): Promise<number> {
  const manager = createMcpManager({
    servers: { ev: { transport: "stdio", command: BIN, args: ["stdio"], pass_env: ["PATH", "HOME"] } as never },
    dataRoot: mkdtempSync(join(tmpdir(), "bench-mcp-")),
    clock: { now: () => Date.now() },
    log: () => {},
    cwd: process.cwd(),
    env: process.env,
  });
  await manager.start();
  const tool = manager.tools().find((t) => t.name === "mcp__ev__echo");
  if (!tool) throw new Error("the everything server has no echo tool");
  const ctx = { supportsVision: false } as ToolContext;
  const signal = new AbortController().signal;
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) {
    const r = await runTool(tool, { message: `m${i}` }, ctx, signal);
    if (r.isError) throw new Error(r.output);
  }
  const elapsed = performance.now() - started;
  await manager.close();
  return elapsed;
}

async function bare(): Promise<number> {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(new StdioClientTransport({ command: BIN, args: ["stdio"], env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" }, stderr: "ignore" }));
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) await client.callTool({ name: "echo", arguments: { message: `m${i}` } });
  const elapsed = performance.now() - started;
  await client.close();
  return elapsed;
}

const oursTimes: number[] = [];
const bareTimes: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  bareTimes.push(await bare());
  oursTimes.push(await ours());
}
const best = (xs: number[]) => Math.min(...xs);
const o = best(oursTimes);
const b = best(bareTimes);
const overhead = (o / b - 1) * 100;
console.log(`${CALLS} sequential echo calls over stdio (best of ${ROUNDS}): ours ${o.toFixed(0)} ms (${((o / CALLS) * 1000).toFixed(0)} µs/call), bare SDK client (reference) ${b.toFixed(0)} ms (${((b / CALLS) * 1000).toFixed(0)} µs/call)`);
console.log(`overhead over the bare SDK: ${overhead.toFixed(1)}% (target <= 10%)`);
console.log(overhead <= 10 ? "PASS mcp-call overhead" : "FAIL mcp-call overhead");
