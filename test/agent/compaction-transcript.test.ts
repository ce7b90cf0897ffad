// What the summarizing model reads: the transcript at each strip level, the size budget, labels by
// origin, files touched; and where a compaction cuts the context.
import { describe, expect, test } from "bun:test";
import type { Conversation, ConversationEntry, UserMessage } from "../../src/agent/conversation.ts";
import { planCompaction } from "../../src/agent/compaction/plan.ts";
import { renderTranscript } from "../../src/agent/compaction/transcript.ts";

const user = (id: string, text: string, origin: UserMessage["origin"] = "prompt"): ConversationEntry => ({ id, role: "user", origin, content: [{ type: "text", text }], created_at: 0 });
const call = (id: string, name: string, args: Record<string, unknown>): ConversationEntry => ({
  id,
  role: "assistant",
  model: "m",
  content: [{ id: `${id}_p`, type: "tool_call", call_id: `${id}_c`, name, arguments: args }],
  usage: null,
  created_at: 0,
});
const result = (id: string, callId: string, name: string, output: string): ConversationEntry => ({ id, role: "tool_results", results: [{ call_id: callId, name, status: "completed", output }], created_at: 0 });
const say = (id: string, text: string): ConversationEntry => ({ id, role: "assistant", model: "m", content: [{ id: `${id}_p`, type: "text", text }], usage: null, created_at: 0 });

const OUTPUT = `HEAD${"a".repeat(3_500)}MIDDLE${"b".repeat(4_500)}TAIL`;
const entries: ConversationEntry[] = [
  user("u1", "first request"),
  user("r1", '<system-reminder name="context_usage">ignore me</system-reminder>', "reminder"),
  call("a1", "read", { path: "src/a.ts" }),
  result("t1", "a1_c", "read", OUTPUT),
  call("a2", "edit", { path: "src/b.ts", old_string: "x", new_string: "y" }),
  result("t2", "a2_c", "edit", "edited"),
  user("n1", "background job finished", "notification"),
  say("a3", "Both files are done."),
  user("u2", "second request"),
  say("a4", "On it."),
];

describe("transcript for the summarizer", () => {
  test("level 0 keeps the newest outputs whole, labels origins, leaves reminders out, lists files", () => {
    const t = renderTranscript(entries, 0, 100_000);
    expect(t.text).toContain("[user]\nfirst request");
    expect(t.text).toContain("[notification]\nbackground job finished");
    expect(t.text).not.toContain("ignore me");
    expect(t.text).toContain('[assistant called read] {"path":"src/a.ts"}');
    // 8 KB of output, among the newest 48 KB: whole.
    expect(t.text).toContain(`[result of read: completed]\n${OUTPUT}`);
    expect(t.omitted).toBe(0);
    expect(t.files).toEqual({ changed: ["src/b.ts"], read: ["src/a.ts"] });
  });

  test("level 0 cuts an older long output to its first and last lines, at line breaks; a newer one stays whole", () => {
    const lines = (tag: string) => Array.from({ length: 400 }, (_, i) => `${tag} line ${String(i).padStart(3, "0")} ${"z".repeat(40)}`).join("\n");
    const old = lines("old");
    const recent = `${"n".repeat(47_000)}\nRECENT_END`;
    const t = renderTranscript([user("u1", "go"), call("a1", "read", { path: "old.log" }), result("t1", "a1_c", "read", old), call("a2", "read", { path: "new.log" }), result("t2", "a2_c", "read", recent)], 0, 100_000);
    expect(t.text).toContain("old line 000");
    expect(t.text).toContain("old line 399");
    expect(t.text).not.toContain("old line 200");
    expect(t.text).toMatch(/\n\[\.\.\. \d+ characters omitted \.\.\.\]\nold line \d{3} z+\n/);
    expect(t.text).toMatch(/old line \d{3} z{40}\n\[\.\.\. /);
    expect(t.text).toContain(recent);
  });

  test("a file counts as changed only when its write or edit completed; a failed edit and a refused write do not", () => {
    const failed: ConversationEntry = { id: "t3", role: "tool_results", results: [{ call_id: "a3_c", name: "edit", status: "error", output: "old_string not found" }], created_at: 0 };
    const denied: ConversationEntry = { id: "t4", role: "tool_results", results: [{ call_id: "a4_c", name: "write", status: "denied", output: "denied" }], created_at: 0 };
    const t = renderTranscript([...entries, call("a3", "edit", { path: "src/c.ts", old_string: "q", new_string: "r" }), failed, call("a4", "write", { path: "src/d.ts", content: "x" }), denied], 0, 100_000);
    expect(t.files).toEqual({ changed: ["src/b.ts"], read: ["src/a.ts"] });
  });

  test("each level strips more: short outputs, then none and the older half, then prompts and answers only", () => {
    const sizes = [0, 1, 2, 3].map((level) => renderTranscript(entries, level, 100_000));
    expect(sizes.map((t) => t.text.length)).toEqual([...sizes.map((t) => t.text.length)].sort((a, b) => b - a));
    expect(sizes[1]!.text).toContain("HEAD");
    expect(sizes[1]!.text).not.toContain("TAIL".padStart(200, "b"));
    expect(sizes[2]!.text).toContain("[result of edit: completed] [output omitted]");
    expect(sizes[2]!.text).not.toContain("first request");
    expect(sizes[2]!.omitted).toBe(5);
    expect(sizes[3]!.text).not.toContain("[assistant called");
    expect(sizes[3]!.text).toContain("[user]\nsecond request");
  });

  test("the budget drops the oldest messages first and says how many", () => {
    const t = renderTranscript(entries, 0, 30);
    expect(t.text.length).toBeLessThanOrEqual(30 * 4 + 60);
    expect(t.text).toContain("On it.");
    expect(t.text).toMatch(/^\[\d+ earlier messages left out\]/);
    expect(t.omitted).toBeGreaterThan(5);
  });
});

describe("where a compaction cuts", () => {
  const conversation: Conversation = { entries };

  test("the kept tail never starts with tool results, and something is always summarized", () => {
    // A budget that would start the tail at t2 (a tool result) moves the cut past it.
    const plan = planCompaction(conversation, 40)!;
    expect(plan.kept[0]!.role).not.toBe("tool_results");
    expect(plan.summarize.length + plan.kept.length).toBe(entries.length);
    const all = planCompaction(conversation, 1_000_000)!;
    expect(all.summarize.map((e) => e.id)).toEqual(["u1"]);
  });

  test("/compact keeps at most the latest turn; an empty context has nothing to compact", () => {
    expect(planCompaction(conversation, 1_000_000, true)!.kept.map((e) => e.id)).toEqual(["u2", "a4"]);
    expect(planCompaction({ entries: [] }, 1_000)).toBeNull();
  });

  test("after a compaction only the context since its start is planned", () => {
    const compacted: Conversation = { entries, context: { index: 8, summary: "earlier", fresh: 10 } };
    const plan = planCompaction(compacted, 1_000_000)!;
    expect(plan.summarize.map((e) => e.id)).toEqual(["u2"]);
    expect(plan.kept.map((e) => e.id)).toEqual(["a4"]);
  });
});
