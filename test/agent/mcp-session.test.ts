// A full agent turn driven by the scripted provider that calls a tool of a real MCP server (the reference
// "everything" server over stdio): offered to the model, found by tool_search, disabled by name.
import { describe, expect, test } from "bun:test";
import { EVERYTHING_BIN } from "../mcp/helpers.ts";
import { makeProject, scriptedConfig, startSession } from "./harness.ts";

const SERVER = `mcp_servers:\n  ev: { transport: stdio, command: "${EVERYTHING_BIN}", args: [stdio], pass_env: [PATH] }\n`;

describe("tool servers in a session", () => {
  test("the model calls an MCP tool and gets its result; close ends the server", async () => {
    const script = `responses:
  - tool_calls:
      - { name: tool_search, arguments: { query: "echo message" } }
      - { name: mcp__ev__echo, arguments: { message: "hello from the model" } }
  - text: done
`;
    const p = makeProject(scriptedConfig(SERVER), { "script.yaml": script });
    const r = await startSession(p);
    r.session.submit({ text: "echo something" });
    await r.session.idle();
    const byName = new Map(r.of("tool_call_completed").map((e) => [e.result.name, e.result]));
    expect(byName.get("mcp__ev__echo")!.status).toBe("completed");
    expect(byName.get("mcp__ev__echo")!.output).toContain("hello from the model");
    expect(byName.get("tool_search")!.output).toContain("## mcp__ev__echo");
    await r.session.close();
  }, 30_000);

  test("a tool server's tool listed in daemon.disabled_tools is not offered or runnable", async () => {
    const script = `responses:
  - tool_calls:
      - { name: mcp__ev__echo, arguments: { message: "x" } }
  - text: done
`;
    const p = makeProject(scriptedConfig(`${SERVER}daemon: { disabled_tools: [mcp__ev__echo] }\n`), { "script.yaml": script });
    const r = await startSession(p);
    r.session.submit({ text: "go" });
    await r.session.idle();
    const result = r.of("tool_call_completed")[0]!.result;
    expect(result.status).toBe("error");
    expect(result.output).toContain("There is no tool named `mcp__ev__echo`");
    expect(result.output).toContain("mcp__ev__get-sum");
    await r.session.close();
  }, 30_000);
});

describe("the /mcp session command", () => {
  test("lists servers with state and tool count; disable takes the tools away, enable brings them back", async () => {
    const p = makeProject(scriptedConfig(SERVER), { "script.yaml": "responses:\n  - text: ok\n" });
    const r = await startSession(p);
    const list = await r.session.command("mcp", []);
    expect(list.message).toMatch(/^ev: connected, \d+ tools \[stdio\]$/);
    const listed = (list.data!.servers as { name: string; state: string; tool_count: number }[])[0]!;
    expect(listed).toMatchObject({ name: "ev", transport: "stdio", state: "connected" });
    expect(listed.tool_count).toBeGreaterThan(3);
    expect(JSON.stringify(list.data)).not.toContain(EVERYTHING_BIN);

    const off = await r.session.command("mcp", ["disable", "ev"]);
    expect(off.message).toBe("ev: disabled [stdio]");
    expect(off.data!.server).toMatchObject({ state: "disabled", tool_count: 0 });
    const on = await r.session.command("mcp", ["enable", "ev"]);
    expect(on.message).toMatch(/^ev: connected, \d+ tools/);
    const again = await r.session.command("mcp", ["reconnect", "ev"]);
    expect(again.data!.server).toMatchObject({ name: "ev", state: "connected" });
    await r.session.close();
  }, 30_000);

  test("unknown servers and actions are typed errors naming what exists", async () => {
    const p = makeProject(scriptedConfig(SERVER), { "script.yaml": "responses:\n  - text: ok\n" });
    const r = await startSession(p);
    await expect(r.session.command("mcp", ["enable", "nope"])).rejects.toMatchObject({ code: "invalid_command", message: "no tool server is named 'nope'; configured: ev" });
    await expect(r.session.command("mcp", ["explode"])).rejects.toMatchObject({ code: "invalid_command", message: expect.stringContaining("allowed: list, resources, enable, disable, reconnect") });
    await expect(r.session.command("mcp", ["enable"])).rejects.toMatchObject({ message: "usage: /mcp enable NAME" });
    await expect(r.session.command("nope", [])).rejects.toMatchObject({ code: "unknown_command" });
    await r.session.close();
  }, 30_000);

  test("without configured servers /mcp says how to add one", async () => {
    const p = makeProject(scriptedConfig(""), { "script.yaml": "responses:\n  - text: ok\n" });
    const r = await startSession(p);
    expect((await r.session.command("mcp", [])).message).toContain("No tool servers are configured");
    await r.session.close();
  });
});
