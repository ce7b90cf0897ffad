// `agent mcp add|list|remove|login|logout|test` through the CLI entry (issue 23 item 7), in a throwaway
// HOME, with the everything server and the SDK's OAuth example server as peers: config edits keep the
// user's comments, `test` connects and lists tools, `login` authorizes without a session (the test plays
// the browser), `logout` forgets, and each exit code says what happened.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { EVERYTHING_BIN, freePort, SDK_EXAMPLE_SERVER, startHttpServer } from "./helpers.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "cli", "main.ts");

function sandbox() {
  const base = mkdtempSync(join(tmpdir(), "agent-mcp-cli-"));
  const project = join(base, "proj");
  mkdirSync(join(project, ".git"), { recursive: true });
  const env = { HOME: join(base, "home"), XDG_CONFIG_HOME: join(base, "config"), XDG_DATA_HOME: join(base, "data"), PATH: process.env.PATH ?? "/usr/bin:/bin" };
  const configDir = join(env.XDG_CONFIG_HOME, "agent");
  mkdirSync(configDir, { recursive: true });
  const spawn = (args: string[]) => Bun.spawn([process.execPath, MAIN, ...args], { cwd: project, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const agent = async (...args: string[]) => {
    const proc = spawn(args);
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code, stdout, stderr };
  };
  return { base, project, env, configDir, agent, spawn };
}

describe("agent mcp add, list, test, remove", () => {
  test("a stdio server added to a commented YAML config keeps the comments; test lists its tools; remove takes it out", async () => {
    const s = sandbox();
    const file = join(s.configDir, "config.yaml");
    writeFileSync(file, "# my settings, by hand\nversion: 3\n\nmcp_servers:\n  # notes server: keep this comment\n  notes: { transport: stdio, command: notes-server }  # trailing note\n");

    const added = await s.agent("mcp", "add", "ev", "--pass-env", "PATH", "--", EVERYTHING_BIN, "stdio");
    expect(added).toMatchObject({ code: 0, stdout: expect.stringContaining(`added tool server ev to ${file}`) });
    const text = readFileSync(file, "utf8");
    expect(text).toStartWith("# my settings, by hand\nversion: 3\n");
    expect(text).toContain("# notes server: keep this comment\n  notes: { transport: stdio, command: notes-server } # trailing note");
    expect(text).toContain(`command: ${EVERYTHING_BIN}`);

    const listed = await s.agent("mcp", "list");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^NAME +TRANSPORT +TARGET/);
    expect(listed.stdout).toMatch(new RegExp(`ev +stdio +${EVERYTHING_BIN.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} stdio +yes +- +global`));

    const tested = await s.agent("mcp", "test", "ev");
    expect(tested.code).toBe(0);
    expect(tested.stdout).toMatch(/^tool server ev: connected, \d+ tools\n/);
    expect(tested.stdout).toMatch(/ {2}mcp__ev__echo +Echoes back the input string/);
    const json = JSON.parse((await s.agent("mcp", "test", "ev", "--json")).stdout) as { state: string; tools: { name: string }[] };
    expect(json.state).toBe("connected");
    expect(json.tools.map((t) => t.name)).toContain("mcp__ev__get-sum");

    const broken = await s.agent("mcp", "test", "notes");
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain("agent mcp test: tool server notes failed");

    expect(await s.agent("mcp", "remove", "ev")).toMatchObject({ code: 0, stdout: `removed tool server ev from ${file}\n` });
    expect(readFileSync(file, "utf8")).toContain("# notes server: keep this comment");
    expect(readFileSync(file, "utf8")).not.toContain("ev:");
    const gone = await s.agent("mcp", "test", "ev");
    expect(gone).toMatchObject({ code: 1, stderr: "agent: no tool server named ev in the config (configured: notes)\n" });
    expect((await s.agent("mcp", "remove", "ev")).code).toBe(1);
  }, 60_000);

  test("TOML keeps its comments (the server's own tables are appended and cut); JSON is printed again", async () => {
    const s = sandbox();
    const toml = join(s.configDir, "config.toml");
    const original = '# hand-written\nversion = 3 # the schema\n\n[mcp_servers.keep]\ntransport = "stdio" # stays\ncommand = "keep-server"\n';
    writeFileSync(toml, original);
    expect((await s.agent("mcp", "add", "remote", "--url", "https://mcp.example.com/mcp", "--auth", "oauth", "--header", "X-Team=blue")).code).toBe(0);
    const added = readFileSync(toml, "utf8");
    expect(added).toStartWith(original);
    expect(added).toContain('[mcp_servers.remote]\ntransport = "http"\nurl = "https://mcp.example.com/mcp"');
    const listed = await s.agent("mcp", "list", "--json");
    expect(JSON.parse(listed.stdout).servers).toContainEqual(expect.objectContaining({ name: "remote", transport: "http", auth: "oauth: not authorized" }));
    expect((await s.agent("mcp", "remove", "remote")).code).toBe(0);
    expect(readFileSync(toml, "utf8")).toBe(original);

    const t = sandbox();
    writeFileSync(join(t.configDir, "config.json"), '{"version": 3}');
    expect((await t.agent("mcp", "add", "ev", "--", "mcp-server-everything")).code).toBe(0);
    expect(JSON.parse(readFileSync(join(t.configDir, "config.json"), "utf8"))).toEqual({ version: 3, mcp_servers: { ev: { transport: "stdio", command: "mcp-server-everything" } } });
  }, 60_000);

  test("a server the config would reject is not written; usage errors exit 2", async () => {
    const s = sandbox();
    const file = join(s.configDir, "config.yaml");
    writeFileSync(file, "version: 3\n");
    const bad = await s.agent("mcp", "add", "a__b", "--", "x");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("not added; the config would not accept it:\n  mcp_servers.a__b: the server name 'a__b' has '__'");
    expect(readFileSync(file, "utf8")).toBe("version: 3\n");
    expect((await s.agent("mcp", "add", "x")).code).toBe(2);
    expect((await s.agent("mcp", "add", "x", "--url", "https://a.example/mcp", "--", "cmd")).code).toBe(2);
    expect((await s.agent("mcp", "add", "x", "--auth", "magic", "--url", "https://a.example/mcp")).code).toBe(2);
  }, 30_000);
});

describe("agent mcp login, logout", () => {
  let server: Subprocess | undefined;
  let mcpPort: number;
  beforeAll(async () => {
    mcpPort = await freePort();
    const authPort = await freePort();
    server = await startHttpServer([Bun.which("node")!, SDK_EXAMPLE_SERVER, "--oauth"], { MCP_PORT: String(mcpPort), MCP_AUTH_PORT: String(authPort) }, `http://localhost:${authPort}/.well-known/oauth-authorization-server`);
  });
  afterAll(async () => {
    server?.kill();
    await server?.exited;
  });

  test("login prints the address, finishes when the browser comes back, and sessions then connect; logout forgets", async () => {
    const s = sandbox();
    writeFileSync(join(s.configDir, "config.yaml"), `version: 3\nmcp_servers:\n  demo: { transport: http, url: "http://localhost:${mcpPort}/mcp", auth: { type: oauth } }\n`);
    const before = await s.agent("mcp", "test", "demo");
    expect(before).toMatchObject({ code: 1, stderr: "agent mcp test: tool server demo needs authorization: run 'agent mcp login demo'\n" });

    const proc = s.spawn(["mcp", "login", "demo"]);
    const reader = proc.stdout.getReader();
    let out = "";
    while (!/\n {2}(http\S+)\n/.test(out)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`login ended early: ${out}${await new Response(proc.stderr).text()}`);
      out += new TextDecoder().decode(value);
    }
    expect(out).toStartWith("Open this address in a browser to authorize demo:");
    // The browser: the example's authorization page approves at once and redirects to our listener.
    const consent = await fetch(/\n {2}(http\S+)\n/.exec(out)![1]!, { redirect: "manual" });
    expect((await fetch(consent.headers.get("location")!)).status).toBe(200);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    expect(await proc.exited).toBe(0);
    expect(out).toMatch(/authorized: tool server demo is connected \(\d+ tools\)/);

    const after = await s.agent("mcp", "test", "demo");
    expect(after.code).toBe(0);
    expect(after.stdout).toContain("mcp__demo__greet");
    expect((await s.agent("mcp", "list")).stdout).toContain("oauth: authorized");
    expect((await s.agent("mcp", "login", "demo")).stdout).toContain("tool server demo is already authorized");

    const out1 = await s.agent("mcp", "logout", "demo");
    expect(out1.code).toBe(0);
    expect(out1.stdout).toContain("forgot the credentials of demo");
    expect((await s.agent("mcp", "logout", "demo")).stdout).toBe("no stored credentials for demo\n");
    expect((await s.agent("mcp", "test", "demo")).code).toBe(1);
  }, 60_000);

  test("login refuses a server that has nothing to log in to", async () => {
    const s = sandbox();
    writeFileSync(join(s.configDir, "config.yaml"), "version: 3\nmcp_servers:\n  ev: { transport: stdio, command: x }\n");
    const r = await s.agent("mcp", "login", "ev");
    expect(r).toMatchObject({ code: 1, stderr: "agent: tool server ev uses a stdio server: there is nothing to log in to (agent mcp test ev tries the connection)\n" });
  });
});
