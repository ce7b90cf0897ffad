// The plan tool: the whole checklist goes to the session, at most one item in progress, and what the
// model reads back says where the plan stands.
import { expect, test } from "bun:test";
import type { PlanItem } from "../../src/protocol/plan.ts";
import { createPlanTool } from "../../src/tools/plan.ts";
import { call, makeContext, makeProject } from "./helpers.ts";

function tool() {
  const updates: PlanItem[][] = [];
  return { plan: createPlanTool((items) => updates.push(items)), updates };
}

test("an update sends the whole list (whitespace tidied) and reports the progress", async () => {
  const { plan, updates } = tool();
  const r = await call(plan, { items: [{ text: "Read  the\nparser", status: "done" }, { text: "Port lexer.ts", status: "in_progress" }, { text: "Run the tests", status: "pending" }] }, makeContext(makeProject()));
  expect(r.isError).toBeFalsy();
  expect(r.output).toBe("Plan updated: 1/3 done: Port lexer.ts.");
  expect(updates).toEqual([[{ text: "Read the parser", status: "done" }, { text: "Port lexer.ts", status: "in_progress" }, { text: "Run the tests", status: "pending" }]]);
  expect((await call(plan, { items: [] }, makeContext(makeProject()))).output).toBe("The plan is cleared.");
  expect((await call(plan, { items: [{ text: "a", status: "pending" }] }, makeContext(makeProject()))).output).toContain("No item is in progress");
});

test("two items in progress, a blank item or an unknown status are refused and nothing is recorded", async () => {
  const { plan, updates } = tool();
  const ctx = makeContext(makeProject());
  const two = await call(plan, { items: [{ text: "a", status: "in_progress" }, { text: "b", status: "in_progress" }] }, ctx);
  expect(two).toMatchObject({ isError: true, output: expect.stringContaining('2 items are in_progress ("a", "b"); at most one may be') });
  expect((await call(plan, { items: [{ text: "  ", status: "pending" }] }, ctx)).output).toContain("Item 1 has no text");
  expect((await call(plan, { items: [{ text: "a", status: "completed" }] }, ctx)).isError).toBe(true);
  expect(updates).toEqual([]);
});
