// Safe by default (issue 23 items 1, 2 and 4): a huge tool result is capped and kept whole in a file the
// model can page through; a server that never answers its handshake fails after its startup timeout
// instead of blocking the session; colliding names are refused, naming both.
import { afterEach, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSessionFromConfig } from "../../src/agent/create-session.ts";
import { createMcpManager, type McpManager, type McpServerConfig } from "../../src/mcp/index.ts";
import { makeProject, scriptedConfig } from "../agent/harness.ts";
import { configEnv, problemLines } from "../helpers/config-env.ts";
import { context, EVERYTHING_BIN, pidsWithMarker, runNamed, waitFor } from "./helpers.ts";

const NAMED_TOOLS = join(import.meta.dir, "fixtures", "named-tools-server.ts");
const everything = (extra: Partial<McpServerConfig> = {}) => ({ transport: "stdio", command: EVERYTHING_BIN, args: ["stdio"], pass_env: ["PATH"], ...extra }) as McpServerConfig;
/** A child that starts and never says a word on stdout: the handshake never completes. `marker` finds it in /proc. */
const silent = (marker: string, extra: Partial<McpServerConfig> = {}) =>
  ({ transport: "stdio", command: "/bin/sh", args: ["-c", "exec sleep 600"], env: { MCP_TEST_MARKER: marker }, ...extra }) as McpServerConfig;

let open: McpManager[] = [];
afterEach(async () => {
  await Promise.all(open.map((m) => m.close()));
  open = [];
});

function manager(servers: Record<string, McpServerConfig>, outputDir = mkdtempSync(join(tmpdir(), "mcp-out-"))) {
  const m = createMcpManager({ servers, dataRoot: join(process.env.XDG_DATA_HOME!, "agent"), clock: { now: () => Date.now() }, log: () => {}, cwd: process.cwd(), outputDir });
  open.push(m);
  return { manager: m, outputDir };
}

/** 4000 numbered lines, about 200 KB. */
const BIG = Array.from({ length: 4000 }, (_, i) => `line ${String(i).padStart(5, "0")} ${"x".repeat(40)}`).join("\n");

describe("tool result cap", () => {
  test("a result over the cap keeps its head and tail, and the whole text is in a file the note names", async () => {
    const { manager: m, outputDir } = manager({ ev: everything() });
    await m.start();
    const result = await runNamed(m, "mcp__ev__echo", { message: BIG }, { ...context(), callId: "toolu_1" } as never);
    const bytes = Buffer.byteLength(result.output);
    expect(bytes).toBeLessThan(31 * 1024 + 600);
    expect(result.output).toStartWith("Echo: line 00000");
    expect(result.output).toEndWith(`line 03999 ${"x".repeat(40)}`);
    expect(result.output).toContain("capped at 30.0 KB");
    const file = join(outputDir, "ev-toolu_1.txt");
    expect(result.output).toContain(`The whole result is in ${file}: read it with \`read\``);
    expect(readFileSync(file, "utf8")).toBe(`Echo: ${BIG}`);
    expect(result.metadata?.truncated).toEqual({ totalBytes: Buffer.byteLength(`Echo: ${BIG}`), file });
  }, 30_000);

  test("max_output_bytes sets the cap; a result under it is untouched; images are counted apart", async () => {
    const { manager: m } = manager({ ev: everything({ max_output_bytes: 2048 }) });
    await m.start();
    const capped = await runNamed(m, "mcp__ev__echo", { message: BIG });
    expect(Buffer.byteLength(capped.output)).toBeLessThan(2048 + 600);
    expect(capped.output).toContain("capped at 2.0 KB");
    expect((await runNamed(m, "mcp__ev__echo", { message: "short" })).output).toBe("Echo: short");
    const image = await runNamed(m, "mcp__ev__get-tiny-image", {}, context(true));
    expect(image.images).toHaveLength(1);
    expect(image.output).not.toContain("capped");
  }, 30_000);

  test("max_output_bytes below 1024 is a config error", () => {
    const c = configEnv();
    c.globalFile(`mcp_servers:\n  ev: { transport: stdio, command: x, max_output_bytes: 10 }\n`);
    expect(problemLines(c.load(), "error")).toContain("mcp_servers.ev.max_output_bytes: 10 bytes is too little to show a result");
  });
});

describe("startup", () => {
  // With the default (30 s) start() would outlast the test's 20 s; the reason names the configured 1 s.
  test("a server that never answers the handshake fails after startup_timeout_seconds, naming the key, and its child is ended", async () => {
    const marker = randomUUID();
    const { manager: m } = manager({ mute: silent(marker, { startup_timeout_seconds: 1 }) });
    await m.start();
    const status = m.servers()[0]!;
    expect(status.state).toBe("failed");
    expect(status.reason).toContain("no answer within 1 s of starting (startup_timeout_seconds)");
    // The child would sleep 600 s: failing the server ends it.
    await waitFor("the mute server's child to be ended", () => pidsWithMarker(marker).length === 0);
  }, 20_000);

  test("the session starts at once; a server's tools appear when it is ready, as a catalog change", async () => {
    const marker = randomUUID();
    const config = scriptedConfig(`mcp_servers:\n  mute: { transport: stdio, command: /bin/sh, args: ["-c", "exec sleep 600"], env: { MCP_TEST_MARKER: "${marker}" } }\n  ev: { transport: stdio, command: "${EVERYTHING_BIN}", args: [stdio], pass_env: [PATH] }\n`);
    const p = makeProject(config, { "script.yaml": "responses:\n  - text: ok\n" });
    const created = await createSessionFromConfig({ cwd: p.root, env: p.env, interactive: false, untrusted: "keep" });
    // Created without waiting for either server: both are still connecting (the mute one for 30 s).
    const mcp = created.live.mcp!;
    expect(mcp.servers().map((s) => s.state)).toEqual(["connecting", "connecting"]);
    expect(created.live.tools.list().some((t) => t.name.startsWith("mcp__"))).toBe(false);
    const changes: string[] = [];
    mcp.onChange((e) => changes.push(`${e.server.name}:${e.server.state}:${e.toolsChanged}`));
    await waitFor("the everything server", () => mcp.servers().find((s) => s.name === "ev")?.state === "connected");
    expect(changes).toContain("ev:connected:true");
    expect(created.live.tools.list().some((t) => t.name === "mcp__ev__echo")).toBe(true);
    // The silent one is still waiting (30 s by default); closing the session ends its child, not the timeout.
    expect(mcp.servers().find((s) => s.name === "mute")?.state).toBe("connecting");
    expect(pidsWithMarker(marker)).toHaveLength(1);
    await created.session.close();
    expect(pidsWithMarker(marker)).toEqual([]);
  }, 30_000);
});

describe("name collisions", () => {
  test("a server name with '__' or an edge '_', and two names that sanitize alike, are config errors naming both", () => {
    const c = configEnv();
    c.globalFile(`mcp_servers:\n  a__b: { transport: stdio, command: x }\n  _c: { transport: stdio, command: x }\n  my.srv: { transport: stdio, command: x }\n  my_srv: { transport: stdio, command: x }\n`);
    const lines = problemLines(c.load(), "error");
    expect(lines).toContain("mcp_servers.a__b: the server name 'a__b' has '__', which makes its tool names (mcp__a__b__<tool>) ambiguous");
    expect(lines).toContain("mcp_servers._c: the server name '_c' has an underscore at its edge, which makes its tool names (mcp___c__<tool>) ambiguous");
    expect(lines).toContain("mcp_servers.my_srv: the servers 'my.srv' and 'my_srv' would both name their tools mcp__my_srv__<tool>; rename one");
  });

  test("two tools whose names become equal are both refused at listing, naming both; the others stay", async () => {
    const { manager: m } = manager({ n: { transport: "stdio", command: process.execPath, args: [NAMED_TOOLS], env: { TOOL_NAMES: "get.item,get_item,other" } } as McpServerConfig });
    await m.start();
    expect(m.tools().map((t) => t.name)).toEqual(["mcp__n__other"]);
    expect(m.servers()[0]).toMatchObject({ state: "connected", toolCount: 1, warnings: ['the tools "get.item" and "get_item" would both be named mcp__n__get_item; neither is offered'] });
  }, 30_000);
});
