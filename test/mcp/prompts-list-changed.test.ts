// A server that adds or removes a prompt while connected (notifications/prompts/list_changed, sent by the
// SDK's McpServer when registerPrompt or remove runs after connect): the manager tells its listeners, and
// in a session the prompt's slash command appears in or leaves the command list (GET /commands, the TUI's
// `/` menu) without reconnecting, and without a notice about the server's state.
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { McpManager } from "../../src/mcp/index.ts";
import { makeProject, scriptedConfig, startSession } from "../agent/harness.ts";
import { runNamed, testManager, waitFor } from "./helpers.ts";

const SERVER_SCRIPT = join(import.meta.dir, "fixtures", "prompt-changing-server.ts");
const CONFIG = { transport: "stdio" as const, command: process.execPath, args: [SERVER_SCRIPT], pass_env: ["PATH"] };

let open: McpManager[] = [];
afterEach(async () => {
  await Promise.all(open.map((m) => m.close()));
  open = [];
});

describe("prompts/list_changed", () => {
  test("the manager's listeners hear which server changed its prompts; prompts() lists the new set", async () => {
    const { manager } = testManager({ pc: CONFIG });
    open.push(manager);
    await manager.start();
    expect((await manager.prompts()).map((p) => p.name)).toEqual(["greet"]);
    const heard: string[] = [];
    manager.onPromptsChange((server) => heard.push(server));
    expect((await runNamed(manager, "mcp__pc__add-prompt", {})).output).toBe("added extra-1");
    await waitFor("the prompt list change", () => heard.length === 1);
    expect(heard).toEqual(["pc"]);
    expect((await manager.prompts()).map((p) => p.name)).toEqual(["greet", "extra-1"]);
    await runNamed(manager, "mcp__pc__remove-prompt", { name: "greet" });
    await waitFor("the second change", () => heard.length === 2);
    expect((await manager.prompts()).map((p) => p.name)).toEqual(["extra-1"]);
  }, 30_000);

  test("in a session, a prompt the server adds becomes a slash command and one it removes goes, without reconnecting", async () => {
    const script = `responses:
  - tool_calls:
      - { name: mcp__pc__add-prompt, arguments: {} }
  - text: added
  - tool_calls:
      - { name: mcp__pc__remove-prompt, arguments: { name: greet } }
  - text: removed
`;
    const server = `mcp_servers:\n  pc: { transport: stdio, command: "${process.execPath}", args: ["${SERVER_SCRIPT}"], pass_env: [PATH] }\n`;
    const r = await startSession(makeProject(scriptedConfig(server), { "script.yaml": script }));
    const prompts = () => r.session.commands().map((c) => c.name).filter((n) => n.startsWith("mcp__pc__")).sort();
    try {
      await waitFor("the first prompt list", () => prompts().length > 0);
      expect(prompts()).toEqual(["mcp__pc__greet"]);
      const notices = () => r.of("notice").filter((n) => n.message.startsWith("tool server pc")).length;
      const noticesBefore = notices();

      r.session.submit({ text: "add a prompt" });
      await r.session.idle();
      await waitFor("the added prompt's command", () => prompts().length === 2);
      expect(prompts()).toEqual(["mcp__pc__extra-1", "mcp__pc__greet"]);
      expect((await r.session.command("mcp__pc__extra-1", [])).message).toBe("sent the prompt extra-1 of pc");

      r.session.submit({ text: "remove greet" });
      await r.session.idle();
      await waitFor("the removed prompt's command to go", () => !prompts().includes("mcp__pc__greet"));
      expect(prompts()).toEqual(["mcp__pc__extra-1"]);
      // A new prompt list is not a change of the server's state: nothing is said about it.
      expect(notices()).toBe(noticesBefore);
      expect((await r.session.command("mcp", [])).message).toMatch(/^pc: connected, 2 tools \[stdio\]$/);
    } finally {
      await r.session.close();
    }
  }, 40_000);
});
