// The model's plan on screen (ink-testing-library, the whole App fed with daemon records): each
// plan_updated record is drawn as a checklist (done, in progress, pending), and the plan tool's own call
// is not drawn as a tool run with raw JSON.
import { expect, test } from "bun:test";
import { render } from "ink-testing-library";
import type { EngineEvent } from "../../src/agent/events.ts";
import { ViewStore } from "../../tui/view-store.ts";
import { recordSequence, testSnapshot } from "./sync-fixtures.ts";

const zero = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 };
const items = [
  { text: "Read the parser", status: "done" },
  { text: "Port lexer.ts", status: "in_progress" },
  { text: "Run the tests", status: "pending" },
] as const;
const args = { items };

const turn: EngineEvent[] = [
  { type: "turn_started", turn_id: "trn_1", model: "m1", facet: "execute" },
  { type: "user_message", turn_id: "trn_1", message: { id: "msg_u1", role: "user", origin: "prompt", content: [{ type: "text", text: "port the lexer" }], created_at: 1 } },
  { type: "assistant_message_started", turn_id: "trn_1", message_id: "msg_a1", model: "m1", created_at: 2 },
  { type: "part_started", message_id: "msg_a1", part_id: "prt_p", kind: "tool_call", call_id: "call_p", name: "plan" },
  { type: "part_completed", message_id: "msg_a1", part: { id: "prt_p", type: "tool_call", call_id: "call_p", name: "plan", arguments: args } },
  { type: "assistant_message_completed", message_id: "msg_a1", usage: zero, stop_reason: "tool_use" },
  { type: "tool_call_started", turn_id: "trn_1", call_id: "call_p", part_id: "prt_p", name: "plan", arguments: args },
  { type: "plan_updated", turn_id: "trn_1", items: [...items] },
  { type: "tool_call_completed", turn_id: "trn_1", part_id: "prt_p", results_message_id: "msg_r1", result: { call_id: "call_p", name: "plan", status: "completed", output: "Plan updated: 1/3 done: Port lexer.ts." }, duration_ms: 1, completed_at: 3 },
] as EngineEvent[];

test("the TUI draws the model's plan as a checklist and hides the plan tool's call", async () => {
  const { App } = await import("../../tui/app.tsx");
  const seq = recordSequence();
  const store = new ViewStore();
  store.onSnapshot(testSnapshot(0), false);
  store.onRecords(seq.records(turn));
  const ui = render(<App store={store} actions={{ commands: async () => ({ commands: [] }) } as never} onExit={() => {}} />);
  await Bun.sleep(100);
  const out = (ui.lastFrame() ?? "").replace(/\x1b\[[\d;:]*m/g, "");
  ui.unmount();
  expect(out).toContain("☰ Plan 1/3 done");
  expect(out).toContain("✓ Read the parser");
  expect(out).toContain("▸ Port lexer.ts");
  expect(out).toContain("○ Run the tests");
  expect(out.indexOf("Read the parser")).toBeLessThan(out.indexOf("Port lexer.ts"));
  expect(out).not.toContain('"items"');
  expect(out).not.toContain("Plan updated:");
});
