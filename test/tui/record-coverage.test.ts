// Every SyncRecordV1 variant is handled by the conversation view on purpose. The list of record types comes
// from the schema itself, so a variant added later fails here until someone decides what the screen does
// with it: draws it (blocks change), keeps it as state (status line, queue, questions...), or ignores it
// (with the reason in view-state.ts). Each record is the schema's own default value (Value.Create) with
// only the fields that point it at something on screen filled in.
import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { RecordBodyVariants, SyncRecordV1, type SyncRecord } from "../../src/protocol/sync-record.ts";
import { applyRecords, emptyViewState, type ViewState } from "../../tui/view-state.ts";

type Handling = "shown" | "state" | "ignored";

interface Expectation {
  handling: Handling;
  /** Fields over the schema's defaults, so the record refers to the open part, tool, subagent or question. */
  fields?: Record<string, unknown>;
}

const usage = { input_tokens: 900, output_tokens: 100, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 };

const EXPECTED: Record<string, Expectation> = {
  user_message: { handling: "shown", fields: { turn_id: "trn_1", message: { id: "msg_u2", role: "user", origin: "prompt", content: [{ type: "text", text: "next" }], created_at: 3 } } },
  turn_started: { handling: "state", fields: { turn_id: "trn_2", model: "m2", facet: "plan" } },
  assistant_message_started: { handling: "ignored", fields: { turn_id: "trn_1", message_id: "msg_a2", model: "m1" } },
  part_started: { handling: "shown", fields: { message_id: "msg_a1", part_id: "prt_new" } },
  part_delta: { handling: "shown", fields: { message_id: "msg_a1", part_id: "prt_text", delta: " more" } },
  part_completed: { handling: "shown", fields: { message_id: "msg_a1", part: { id: "prt_text", type: "text", text: "final" } } },
  part_discarded: { handling: "shown", fields: { message_id: "msg_a1", part_id: "prt_text" } },
  assistant_message_completed: { handling: "state", fields: { message_id: "msg_a1", usage } },
  tool_call_started: { handling: "shown", fields: { turn_id: "trn_1", call_id: "call_1", name: "edit", arguments: { path: "a.ts" } } },
  tool_call_progress: { handling: "shown", fields: { turn_id: "trn_1", call_id: "call_1", part_id: "prt_tool", name: "edit", progress: 3, total: 4 } },
  tool_call_completed: { handling: "shown", fields: { turn_id: "trn_1", results_message_id: "msg_r1", result: { call_id: "call_1", name: "edit", status: "completed", output: "ok" } } },
  retry: { handling: "shown", fields: { turn_id: "trn_1", attempt: 1, max_retries: 3, reason: "overloaded" } },
  turn_completed: { handling: "shown", fields: { turn_id: "trn_1" } },
  interrogative_opened: { handling: "state", fields: { interrogative: { id: "int_2", kind: "permission", turn_id: "trn_1", tool: "shell", arguments: {}, reason: "asks" } } },
  interrogative_closed: { handling: "state", fields: { id: "int_1" } },
  queue_changed: { handling: "state", fields: { queue: [{ id: "inp_1", text: "later" }] } },
  progress: { handling: "state", fields: { turn_id: "trn_1", text: "reading files" } },
  plan_updated: { handling: "shown", fields: { turn_id: "trn_1", items: [{ text: "Port lexer.ts", status: "in_progress" }] } },
  notice: { handling: "shown", fields: { message: "tool server up" } },
  compaction_started: { handling: "state", fields: { turn_id: "trn_1" } },
  context_compacted: { handling: "shown", fields: { turn_id: "trn_1", kept_from_message_id: null } },
  compaction_failed: { handling: "shown", fields: { turn_id: "trn_1" } },
  context_cleared: { handling: "shown" },
  facet_changed: { handling: "shown", fields: { facet: "plan", previous: "execute", model: "m1" } },
  model_changed: { handling: "shown", fields: { model: "m2", previous: "m1" } },
  plan_handoff: { handling: "shown", fields: { from: "plan", to: "execute", goal_id: null } },
  goal_changed: { handling: "shown" },
  notification: { handling: "shown" },
  hook_ran: { handling: "shown", fields: { turn_id: "trn_1", hook: { event: "PreToolUse", command: "./guard.sh", origin: "global", tool: "shell", outcome: "blocked", exit_code: 2, duration_ms: 5, message: "no rm -rf" } } },
  checkpoint_saved: { handling: "ignored", fields: { turn_id: "trn_1", prompt_id: "msg_u1", call_id: "call_1", files: [{ path: "/p/a.ts", before: null }] } },
  checkpoint_settled: { handling: "ignored", fields: { turn_id: "trn_1", files: [{ path: "/p/a.ts", after: null }] } },
  rewound: { handling: "shown", fields: { action: "rewind", prompt_id: "msg_u1", mode: "both", turn_ids: ["trn_1"], restored: ["/p/a.ts"], kept: [] } },
  subagent_started: { handling: "shown", fields: { subagent_id: "sub_2", parent_tool_call_id: "call_1" } },
  subagent_progress: { handling: "shown", fields: { subagent_id: "sub_1", text: "grep" } },
  subagent_stalled: { handling: "shown", fields: { subagent_id: "sub_1", idle_ms: 90_000 } },
  subagent_completed: { handling: "shown", fields: { subagent_id: "sub_1", report: "done" } },
  session_state: { handling: "state", fields: { state: "stopping" } },
  operation_result: { handling: "ignored" },
  daemon_catalog_changed: { handling: "state", fields: { catalog_revision: "8" } },
};

const schemaTypes: string[] = RecordBodyVariants.map((v) => v.properties.type.const);

let seq = 0;
function record(type: string, fields: Record<string, unknown> = {}): SyncRecord {
  const variant = RecordBodyVariants.find((v) => v.properties.type.const === type)!;
  const r = { version: 1, seq: String(++seq), at: 0, ...(Value.Create(variant) as object), ...fields };
  // A record the daemon could really send: the schema's own check.
  expect(Value.Errors(SyncRecordV1, r).First()?.message ?? null).toBeNull();
  return r as SyncRecord;
}

/** A turn in progress: an open text part, a streaming tool call, a running subagent, an open question. */
function busyState(): ViewState {
  const state = emptyViewState();
  applyRecords(state, [
    record("turn_started", { turn_id: "trn_1", model: "m1", facet: "execute" }),
    record("user_message", EXPECTED.user_message!.fields),
    record("assistant_message_started", { turn_id: "trn_1", message_id: "msg_a1", model: "m1" }),
    record("part_started", { message_id: "msg_a1", part_id: "prt_text", kind: "text" }),
    record("part_started", { message_id: "msg_a1", part_id: "prt_tool", kind: "tool_call", call_id: "call_1", name: "edit" }),
    record("tool_call_started", { turn_id: "trn_1", call_id: "call_1", part_id: "prt_tool", name: "edit", arguments: {} }),
    record("subagent_started", { subagent_id: "sub_1", name: "explore", parent_tool_call_id: "call_1", model: "m1", description: "looks around" }),
    record("interrogative_opened", { interrogative: { id: "int_1", kind: "permission", turn_id: "trn_1", tool: "shell", arguments: {}, reason: "asks" } }),
  ]);
  return state;
}

/** What the screen shows: the blocks, and the rest of the view state (not the engine's conversation nor the cursor). */
function observed(state: ViewState): { blocks: string; rest: string } {
  const { blocks, conversation: _conversation, lastSeq: _lastSeq, ...rest } = state;
  return { blocks: JSON.stringify(blocks), rest: JSON.stringify(rest) };
}

describe("every SyncRecordV1 variant", () => {
  test("the schema's record types and this test's expectations are the same list", () => {
    expect(schemaTypes.length).toBeGreaterThan(30);
    expect(schemaTypes.filter((t) => !(t in EXPECTED))).toEqual([]);
    expect(Object.keys(EXPECTED).filter((t) => !schemaTypes.includes(t))).toEqual([]);
  });

  for (const type of schemaTypes) {
    test(`${type}: ${EXPECTED[type]?.handling ?? "not decided"}`, () => {
      const expectation = EXPECTED[type];
      if (!expectation) throw new Error(`the view has no decided handling for the record type ${type}: draw it, keep it as state, or ignore it with a reason (tui/view-state.ts), then add it here`);
      const state = busyState();
      const before = observed(state);
      applyRecords(state, [record(type, expectation.fields)]);
      const after = observed(state);
      const handling: Handling = after.blocks !== before.blocks ? "shown" : after.rest !== before.rest ? "state" : "ignored";
      expect(handling).toBe(expectation.handling);
      expect(state.lastSeq).toBe(seq);
    });
  }
});
