// The terminal channel of the notifications: which escape a terminal gets, which events ring by default,
// and that a batch of live records rings once, for the events configured.
import { describe, expect, test } from "bun:test";
import { alertForm, alertSequence, terminalAlert, terminalEvents } from "../../tui/terminal-alert.ts";
import type { SyncRecord } from "../../src/protocol/sync-record.ts";

const rec = (body: Record<string, unknown>, seq = "1") => ({ version: 1, seq, at: 0, ...body }) as unknown as SyncRecord;
const question = rec({ type: "interrogative_opened", interrogative: { id: "ask_1", kind: "permission", turn_id: "t", tool: "shell", arguments: {}, reason: "r" } });
const turnEnd = rec({ type: "turn_completed", turn_id: "t", stop_reason: "end_turn", usage: {} });

describe("terminal alerts", () => {
  test("the escape follows the terminal; multiplexers get BEL", () => {
    expect(alertForm({ TERM_PROGRAM: "iTerm.app" })).toBe("osc9");
    expect(alertForm({ TERM_PROGRAM: "WezTerm" })).toBe("osc9");
    expect(alertForm({ TERM: "xterm-kitty" })).toBe("osc9");
    expect(alertForm({ TERM: "rxvt-unicode-256color" })).toBe("osc777");
    expect(alertForm({ TERM: "foot" })).toBe("osc777");
    expect(alertForm({ TERM: "xterm-256color" })).toBe("bel");
    expect(alertForm({ TERM_PROGRAM: "iTerm.app", TMUX: "/tmp/tmux-0/default,1,0" })).toBe("bel");
  });

  test("sequences; control characters cannot end them early", () => {
    expect(alertSequence("osc9", "agent: hi")).toBe("\x1b]9;agent: hi\x07");
    expect(alertSequence("osc777", "a\x07b\x1b]c")).toBe("\x1b]777;notify;agent;a b ]c\x07");
    expect(alertSequence("bel", "x")).toBe("\x07");
  });

  test("by default questions and finished goals ring, finished turns do not; notify_events decides", () => {
    expect([...terminalEvents(null)].sort()).toEqual(["goal_finished", "question_waiting"]);
    expect([...terminalEvents({ turn_completed: ["terminal"], question_waiting: [] })].sort()).toEqual(["goal_finished", "turn_completed"]);
  });

  test("a batch rings once, for a configured event only", () => {
    const defaults = terminalEvents(null);
    expect(terminalAlert([turnEnd], defaults, "osc9")).toBeNull();
    expect(terminalAlert([turnEnd, question, question], defaults, "osc9")).toBe("\x1b]9;agent: permission wanted for shell\x07");
    expect(terminalAlert([turnEnd], terminalEvents({ turn_completed: ["terminal", "program"] }), "bel")).toBe("\x07");
  });
});
