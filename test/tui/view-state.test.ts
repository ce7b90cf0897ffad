// The record fold behind the conversation view, and the store's rule for what is printed once: the
// conversation is the engine's own fold, blocks stream and then freeze, a long history prints only its
// newest blocks, and a resync never prints a block twice.
import { describe, expect, test } from "bun:test";
import { foldEvents, type EngineEvent } from "../../src/agent/events.ts";
import type { SyncRecord } from "../../src/protocol/sync-record.ts";
import type { SyncSnapshotBody } from "../../src/protocol/sync-shapes.ts";
import { applyRecords, emptyViewState } from "../../tui/view-state.ts";
import { tailLines } from "../../tui/tail-lines.ts";
import { HISTORY_LINES, ViewStore } from "../../tui/view-store.ts";
import { richTurnEvents } from "../daemon/fake-engine.ts";
import { recordSequence, testSnapshot } from "./sync-fixtures.ts";

const sequence = recordSequence();
const records = sequence.records;
const snapshot = (over: Partial<SyncSnapshotBody> = {}) => testSnapshot(sequence.seq, over);

const usage = { input_tokens: 1000, output_tokens: 50, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 };

function textTurn(n: number, reply: string): EngineEvent[] {
  const t = `trn_${n}`;
  const m = `msg_a${n}`;
  return [
    { type: "turn_started", turn_id: t, model: "m1", facet: "plan" },
    { type: "user_message", turn_id: t, message: { id: `msg_u${n}`, role: "user", origin: "prompt", content: [{ type: "text", text: `prompt ${n}` }], created_at: 1 } },
    { type: "assistant_message_started", turn_id: t, message_id: m, model: "m1", created_at: 2 },
    { type: "part_started", message_id: m, part_id: `prt_${n}`, kind: "text" },
    { type: "part_delta", message_id: m, part_id: `prt_${n}`, delta: reply },
    { type: "part_completed", message_id: m, part: { id: `prt_${n}`, type: "text", text: reply } },
    { type: "assistant_message_completed", message_id: m, usage, stop_reason: "end_turn" },
    { type: "turn_completed", turn_id: t, stop_reason: "end_turn", usage },
  ];
}

describe("view-state fold", () => {
  test("a full turn: the conversation equals the engine's fold; blocks show prompt, reasoning, tool with result, retry, notice", () => {
    const events = richTurnEvents("trn_r");
    const state = emptyViewState();
    applyRecords(state, records(events));
    expect(state.conversation).toEqual(foldEvents(events));
    expect(state.blocks.map((b) => b.kind)).toEqual(["user", "retry", "reasoning", "tool", "notice"]);
    const tool = state.blocks.find((b) => b.kind === "tool")!;
    expect(tool).toMatchObject({ id: "prt_c", callId: "call_1", name: "shell", args: { command: "ls" }, running: false, durationMs: 12, done: true });
    expect(tool.kind === "tool" && tool.result?.output).toBe("a\nb\n");
    expect(state.blocks.every((b) => b.done)).toBe(true);
    expect(state).toMatchObject({ busy: false, model: "a-large", facet: "default", queue: [{ id: "inp_1", text: "next" }], pending: [] });
  });

  test("streaming: text grows by deltas, tool arguments stream into their block, a discarded part disappears", () => {
    const state = emptyViewState();
    applyRecords(state, records(textTurn(1, "").slice(0, 4)));
    applyRecords(state, records([{ type: "part_delta", message_id: "msg_a1", part_id: "prt_1", delta: "Hel" }]));
    applyRecords(state, records([{ type: "part_delta", message_id: "msg_a1", part_id: "prt_1", delta: "lo" }]));
    expect(state.blocks.at(-1)).toMatchObject({ kind: "text", text: "Hello", done: false });
    expect(state.busy).toBe(true);
    applyRecords(state, records([
      { type: "part_started", message_id: "msg_a1", part_id: "prt_t", kind: "tool_call", call_id: "call_9", name: "edit" },
      { type: "part_delta", message_id: "msg_a1", part_id: "prt_t", delta: '{"path":' },
    ]));
    expect(state.blocks.at(-1)).toMatchObject({ kind: "tool", id: "prt_t", callId: "call_9", argsText: '{"path":', running: false, done: false });
    applyRecords(state, records([{ type: "part_discarded", message_id: "msg_a1", part_id: "prt_t" }]));
    expect(state.blocks.map((b) => b.id)).toEqual(["msg_u1", "prt_1"]);
  });

  test("a provider call id that repeats (`call_1` every time) gets a block per call, with or without the records' part_id", () => {
    const toolTurn = (n: number, command: string, withPartId: boolean): EngineEvent[] => {
      const t = `trn_${n}`;
      const m = `msg_a${n}`;
      const part = withPartId ? { part_id: `prt_c${n}` } : {};
      return [
        { type: "turn_started", turn_id: t, model: "m1", facet: "plan" },
        { type: "assistant_message_started", turn_id: t, message_id: m, model: "m1", created_at: 2 },
        { type: "part_started", message_id: m, part_id: `prt_c${n}`, kind: "tool_call", call_id: "call_1", name: "shell" },
        { type: "part_completed", message_id: m, part: { id: `prt_c${n}`, type: "tool_call", call_id: "call_1", name: "shell", arguments: { command } } },
        { type: "assistant_message_completed", message_id: m, usage, stop_reason: "tool_use" },
        { type: "tool_call_started", turn_id: t, call_id: "call_1", ...part, name: "shell", arguments: { command } },
        { type: "tool_call_completed", turn_id: t, ...part, results_message_id: `msg_t${n}`, result: { call_id: "call_1", name: "shell", status: "completed", output: command }, duration_ms: 1, completed_at: 3 },
        { type: "turn_completed", turn_id: t, stop_reason: "end_turn", usage },
      ];
    };
    for (const withPartId of [true, false]) {
      const store = new ViewStore();
      store.onSnapshot(snapshot({ seq: "0" }), false);
      store.onRecords(records([...toolTurn(1, "echo one", withPartId), ...toolTurn(2, "echo two", withPartId)]));
      const printed = store.printed.filter((b) => b.kind === "tool");
      expect(printed.map((b) => b.kind === "tool" && [b.args, b.result?.output])).toEqual([
        [{ command: "echo one" }, "echo one"],
        [{ command: "echo two" }, "echo two"],
      ]);
    }
  });

  test("an interrupted turn freezes its open blocks and says so; questions open and close", () => {
    const state = emptyViewState();
    applyRecords(state, records(textTurn(1, "x").slice(0, 5)));
    applyRecords(state, records([
      { type: "interrogative_opened", interrogative: { id: "itg_1", kind: "goal_approval", turn_id: "trn_1", goal: "ship it" } },
    ]));
    expect(state.pending).toHaveLength(1);
    applyRecords(state, records([
      { type: "interrogative_closed", id: "itg_1", outcome: "withdrawn" },
      { type: "turn_completed", turn_id: "trn_1", stop_reason: "interrupted", usage },
    ]));
    expect(state.pending).toHaveLength(0);
    expect(state.blocks.every((b) => b.done)).toBe(true);
    expect(state.blocks.at(-1)).toMatchObject({ kind: "turn_end", stopReason: "interrupted" });
    expect(state.busy).toBe(false);
  });
});

describe("session changes and subagents", () => {
  test("facet and model switches update the status and leave a line; a subagent shows its activity, then its report", () => {
    const state = emptyViewState();
    applyRecords(state, records([
      { type: "facet_changed", facet: "plan", previous: "execute", model: "m-big" },
      { type: "model_changed", model: "m-small", previous: "m-big" },
      { type: "context_cleared", tokens_before: 1234 },
      { type: "subagent_started", subagent_id: "sub_1", name: "explorer", parent_tool_call_id: "call_1", model: "m-small", description: "find the config loader" },
      { type: "subagent_progress", subagent_id: "sub_1", name: "explorer", activity: "tool_call", text: "grep" },
    ]));
    expect(state).toMatchObject({ facet: "plan", model: "m-small", lastUsage: null });
    expect(state.blocks.map((b) => (b.kind === "notice" ? b.message : b.kind))).toEqual([
      "facet: plan (was execute) · model m-big",
      "model: m-small (was m-big)",
      "context cleared (it held about 1234 tokens); the conversation stays on screen",
      "subagent",
    ]);
    expect(state.blocks.at(-1)).toMatchObject({ kind: "subagent", activity: "→ grep", done: false });
    applyRecords(state, records([
      { type: "subagent_completed", subagent_id: "sub_1", name: "explorer", status: "completed", report: "src/config/load.ts", usage, tool_turns: 2 },
    ]));
    expect(state.blocks.at(-1)).toMatchObject({ kind: "subagent", status: "completed", report: "src/config/load.ts", activity: null, done: true });
  });
});

describe("view store", () => {
  test("finished blocks are printed once, in order; the live tail holds what still changes", () => {
    const store = new ViewStore();
    store.onSnapshot(snapshot(), true);
    store.onRecords(records(textTurn(1, "one").slice(0, 5)));
    expect(store.printed.map((b) => b.id)).toEqual(["msg_u1"]);
    expect(store.tail().map((b) => b.id)).toEqual(["prt_1"]);
    store.onRecords(records(textTurn(1, "one").slice(5)));
    expect(store.printed.map((b) => b.id)).toEqual(["msg_u1", "prt_1"]);
    expect(store.tail()).toEqual([]);
  });

  test("attaching to a long history prints only about the newest HISTORY_LINES lines, with a note of how many items are hidden", () => {
    const history: SyncRecord[] = [];
    const turns = HISTORY_LINES / 2;
    for (let i = 0; i < turns; i++) history.push(...records(textTurn(i, `answer ${i}`)));
    const store = new ViewStore();
    store.onSnapshot(snapshot(), true);
    expect(store.catchingUp).toBe(true);
    store.onRecords(history.slice(0, 100));
    expect(store.printed).toEqual([]);
    store.onRecords(history.slice(100));
    expect(store.catchingUp).toBe(false);
    // Each turn is a prompt and a one-line answer (about 4 lines): the newest quarter fits the budget.
    expect(store.printed[0]).toMatchObject({ kind: "notice", message: `${turns * 2 - HISTORY_LINES / 2} earlier items of this session are not shown` });
    expect(store.printed).toHaveLength(HISTORY_LINES / 2 + 1);
    expect(store.printed.at(-1)).toMatchObject({ id: `prt_${turns - 1}`, text: `answer ${turns - 1}` });
  });

  test("one answer longer than the budget is printed from its end, inside its code block", () => {
    const long = ["intro", "```ts", ...Array.from({ length: HISTORY_LINES * 2 }, (_, i) => `line ${i}`), "```", "outro"].join("\n");
    const store = new ViewStore();
    const history = records(textTurn(1, long));
    store.onSnapshot(snapshot(), true);
    store.onRecords(history);
    const text = store.printed.find((b) => b.kind === "text");
    expect(text?.kind === "text" && text.text.startsWith("```\nline ")).toBe(true);
    expect(text?.kind === "text" && text.text.endsWith("outro")).toBe(true);
    expect(store.printed.some((b) => b.kind === "notice" && /earlier lines of this answer are not shown/.test(b.message))).toBe(true);
    expect(tailLines("a\nb\nc", 2)).toEqual({ text: "b\nc", hidden: 1 });
    // With a width, a long line counts as the rows it wraps to; a line longer than the room keeps its end.
    expect(tailLines("short\n" + "x".repeat(30), 2, 10)).toEqual({ text: "…" + "x".repeat(19), hidden: 1 });
    expect(tailLines("a\n" + "y".repeat(15), 3, 10)).toEqual({ text: "a\n" + "y".repeat(15), hidden: 0 });
  });

  test("a rebuild (new epoch) replays the same history without printing it again; new blocks still print", () => {
    const first = records(textTurn(1, "one"));
    const store = new ViewStore();
    store.onSnapshot(snapshot(), true);
    store.onRecords(first);
    const before = store.printed.length;
    store.onProblem("connection lost", 1);
    expect(store.health.state).toBe("disconnected");
    store.onSnapshot(snapshot({ daemon_epoch: "e2" }), true);
    store.onRecords(first);
    expect(store.printed.length).toBe(before);
    store.onRecords(records(textTurn(2, "two")));
    expect(store.printed.slice(before).map((b) => b.id)).toEqual(["msg_u2", "prt_2"]);
    expect(store.health.state).toBe("connected");
  });

  test("the snapshot's pending questions and queue show at once, before any replay", () => {
    const store = new ViewStore();
    store.onSnapshot(
      snapshot({ turn: { busy: true, turn_id: "trn_9", queue: [{ id: "inp_1", text: "later" }], pending_interrogatives: [{ id: "itg_9", kind: "goal_approval", turn_id: "trn_9", goal: "g" }] } }),
      true,
    );
    expect(store.state.pending.map((q) => q.id)).toEqual(["itg_9"]);
    expect(store.state.queue.map((q) => q.text)).toEqual(["later"]);
    expect(store.state.busy).toBe(true);
  });
});
