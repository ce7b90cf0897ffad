// Tool servers under `agent exec`, through the compiled binary (issue 23 items 3 and 5): a server's stderr
// is in the session's session.log as the failure reason says, and shutting the servers down at the end of
// the run puts no "server disabled" notification into the model's history.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { EVERYTHING_BIN } from "../mcp/helpers.ts";

const PROVIDER = "providers:\n  offline: { kind: { type: catalog, name: test }, url: script.yaml }\n";

function project(servers: string) {
  const base = mkdtempSync(join(tmpdir(), "agent-mcp-exec-"));
  const root = join(base, "proj");
  mkdirSync(join(root, ".git"), { recursive: true });
  mkdirSync(join(root, ".agent"));
  writeFileSync(join(root, "script.yaml"), 'responses:\n  - text: "done"\n');
  writeFileSync(join(root, ".agent", "config.yaml"), `${PROVIDER}mcp_servers:\n${servers}`);
  const env = { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin" };
  const run = (args: string[]) => {
    const proc = Bun.spawnSync([BINARY, ...args], { cwd: root, env, stdout: "pipe", stderr: "pipe" });
    return { code: proc.exitCode, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
  };
  return { root, data: join(base, "data", "agent"), run };
}

beforeAll(() => ensureBinary(), 300_000);

describe("agent exec and tool servers", () => {
  test("a server that dies at start: the warning points at the session log, and its stderr is there", () => {
    const p = project(`  crashy: { transport: stdio, command: sh, args: ["-c", "echo boom-from-crashy-stderr >&2; exit 3"] }\n`);
    const r = p.run(["exec", "--trust-project", "hello"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("tool server crashy: failed: the server process exited (code 3); its stderr is in the session log");
    const id = /session (ses_\w+)/.exec(r.stderr)![1]!;
    const log = join(p.data, "sessions", id, "session.log");
    expect(existsSync(log)).toBe(true);
    expect(readFileSync(log, "utf8")).toMatch(/ info mcp:crashy stderr: boom-from-crashy-stderr\n/);
  }, 60_000);

  test("the servers' tools are there for the one turn, and their shutdown leaves no notification in the history", () => {
    const p = project(`  ev: { transport: stdio, command: "${EVERYTHING_BIN}", args: [stdio], pass_env: [PATH] }\n`);
    const r = p.run(["exec", "--trust-project", "--json", "hello"]);
    expect(r.code).toBe(0);
    const events = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as { type: string; message?: string });
    expect(events.some((e) => e.type === "notice" && e.message?.startsWith("tool server ev: connected"))).toBe(true);
    expect(events.filter((e) => e.type === "notification" || (e.type === "notice" && e.message?.includes("disabled")))).toEqual([]);
    expect(events.filter((e) => e.type === "user_message")).toHaveLength(1);
  }, 60_000);
});
