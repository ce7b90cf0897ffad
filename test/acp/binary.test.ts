// `agent acp` from the compiled binary, as an editor starts it: the offline demo answers a prompt with a
// tool call and a plan, the session is listed by `agent sessions list`, and `agent --help` names the command.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { agentText, startEditor, stopDaemons, world, type Editor } from "./editor.ts";

const w = world({ script: "responses:\n  - text: unused\n", config: "" });
let e: Editor | null = null;
beforeAll(() => ensureBinary(), 300_000);
afterAll(async () => {
  await e?.close();
  stopDaemons(w);
});

const run = (args: string[]) => spawnSync(BINARY, args, { cwd: w.project, env: w.env, encoding: "utf8" });

describe("agent acp (compiled binary)", () => {
  test("agent --help lists acp", () => {
    expect(run(["--help"]).stdout).toMatch(/\n\s+acp\s+Serve editors over the Agent Client Protocol/);
  });

  test("--demo: a prompt streams the demo's answer, its tool call and its plan; the session is listed", async () => {
    e = await startEditor(w, { binary: BINARY, args: ["--demo"] });
    const { sessionId } = await e.ctx.request("session/new", { cwd: w.project, mcpServers: [] });
    const answer = await e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] });
    expect(answer.stopReason).toBe("end_turn");
    expect(agentText(e.updates)).toContain("This is the offline demo of agent");
    const updates = e.updates.map((n) => n.update);
    const glob = updates.find((u) => u.sessionUpdate === "tool_call_update" && u.kind === "search");
    expect(glob).toMatchObject({ title: "Find *" });
    const id = glob && "toolCallId" in glob ? glob.toolCallId : "";
    expect(updates.find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === id && u.status === "completed")).toBeDefined();
    expect(updates.find((u) => u.sessionUpdate === "plan")).toMatchObject({ entries: [{ content: "Looking at the project (offline demo)" }] });
    const listed = run(["sessions", "list"]);
    expect(listed.stdout).toContain(sessionId);
    expect(listed.stdout).toContain("hello");
  }, 60_000);
});
