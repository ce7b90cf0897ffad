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
