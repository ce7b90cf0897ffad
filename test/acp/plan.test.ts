// The model's plan (the plan tool) reaches an editor as ACP `plan` session updates, through the official
// SDK's client side: each update is the whole checklist with ACP's statuses, progress lines no longer
// replace it once the model keeps one, and the plan tool's calls are not shown as tool calls.
import { afterAll, expect, test } from "bun:test";
import { startEditor, stopDaemons, world, type Editor } from "./editor.ts";

const SCRIPT = `responses:
  - tool_calls:
      - { name: plan, arguments: { items: [{ text: "Read the parser", status: in_progress }, { text: "Port lexer.ts", status: pending }, { text: "Run the tests", status: pending }] } }
  - tool_calls:
      - { name: progress_update, arguments: { text: "Reading parser.ts" } }
      - { name: plan, arguments: { items: [{ text: "Read the parser", status: done }, { text: "Port lexer.ts", status: in_progress }, { text: "Run the tests", status: pending }] } }
  - text: "Halfway there."
`;

const w = world({ script: SCRIPT });
const editors: Editor[] = [];
afterAll(async () => {
  for (const e of editors) await e.close();
  stopDaemons(w);
});

test("an editor gets the model's plan as plan updates", async () => {
  const e = await startEditor(w);
  editors.push(e);
  await e.ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await e.ctx.request("session/new", { cwd: w.project, mcpServers: [] });
  const answer = await e.ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "port the lexer" }] });
  expect(answer.stopReason).toBe("end_turn");
  await e.waitFor((n) => n.update.sessionUpdate === "agent_message_chunk");
  const updates = e.updates.map((n) => n.update);
  const plans = updates.filter((u) => u.sessionUpdate === "plan");
  expect(plans).toEqual([
    {
      sessionUpdate: "plan",
      entries: [
        { content: "Read the parser", priority: "medium", status: "in_progress" },
        { content: "Port lexer.ts", priority: "medium", status: "pending" },
        { content: "Run the tests", priority: "medium", status: "pending" },
      ],
    },
    {
      sessionUpdate: "plan",
      entries: [
        { content: "Read the parser", priority: "medium", status: "completed" },
        { content: "Port lexer.ts", priority: "medium", status: "in_progress" },
        { content: "Run the tests", priority: "medium", status: "pending" },
      ],
    },
  ]);
  // Neither the plan tool nor the progress line shows as a tool call.
  expect(updates.filter((u) => u.sessionUpdate === "tool_call")).toEqual([]);
});
