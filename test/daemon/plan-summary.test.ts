// The session's plan in the running-session summary (GET /sync/summary, what the gateway's fleet catalog
// shows for the session): "3/7 done: <item in progress>", folded from the plan_updated records, absent
// while there is no plan, and valid against the shared SyncStatusRecord schema.
import { afterEach, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { SyncStatusRecord } from "../../src/protocol/sync-shapes.ts";
import { type Harness, startHarness } from "./harness.ts";

let h: Harness | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
});

const summary = async () => (await h!.get("/sync/summary")).json();

test("the summary carries the plan's progress while the session has a plan", async () => {
  h = await startHarness();
  expect((await summary()).plan).toBeUndefined();
  h.engine().inject({
    type: "plan_updated",
    turn_id: "trn_1",
    items: [
      { text: "Read the parser", status: "done" },
      { text: "Port lexer.ts", status: "in_progress" },
      { text: "Run the tests", status: "pending" },
    ],
  });
  const withPlan = await summary();
  expect(withPlan.plan).toEqual({ done: 1, total: 3, current: "Port lexer.ts", text: "1/3 done: Port lexer.ts" });
  expect(Value.Check(SyncStatusRecord, withPlan)).toBe(true);

  h.engine().inject({ type: "plan_updated", turn_id: "trn_1", items: [] });
  expect((await summary()).plan).toBeUndefined();
});
