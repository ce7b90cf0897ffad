// Compaction inside turns, against the HTTP provider fakes: the session model's fake reports large usage,
// a second fake plays the `mini` model that writes summaries. The requests both fakes receive are what
// the assertions read: the summary and the kept turns in the next request, the request's size, the
// stripping of retried summary requests.
import { afterEach, describe, expect, test } from "bun:test";
import { unansweredCalls } from "../../src/agent/conversation.ts";
import { foldEvents } from "../../src/agent/events.ts";
import { toProviderMessages } from "../../src/agent/provider-messages.ts";
import { describeEvent } from "../../src/cli/exec-progress.ts";
import { startProviderFake, type FakeStep, type ProviderFake } from "../fakes/provider-fake.ts";
import type { Dialect } from "../fakes/request-invariants.ts";
import { makeProject, startSession, waitFor } from "./harness.ts";
import { FILES, firstTwoTurns, readCall, SUMMARY } from "./compaction-fixtures.ts";
import { twoModelConfig } from "./two-model-config.ts";

let fakes: ProviderFake[] = [];
afterEach(async () => {
  for (const f of fakes) await f.stop();
  fakes = [];
});

const WINDOW = 32_000;
const MAX_OUT = 4_096;
export function twoFakes(main: FakeStep[], mini: FakeStep[], dialect: Dialect = "a_messages"): { main: ProviderFake; mini: ProviderFake; dialect: Dialect } {
  const m = startProviderFake(dialect, main);
  const s = startProviderFake(dialect, mini);
  fakes.push(m, s);
  return { main: m, mini: s, dialect };
}

export function compactionConfig(f: { main: ProviderFake; mini: ProviderFake; dialect: Dialect }, daemon = "retry: { max_retries: 0 }"): string {
  return twoModelConfig({ ...f, daemon, model: `context_window: ${WINDOW}, compaction_threshold: 0.6, max_output_tokens_per_turn: ${MAX_OUT}` });
}

/** The user text of a summary request (the fakes speak the Messages dialect). */
export function summaryRequestText(body: any): string {
  return body.messages.map((m: any) => (typeof m.content === "string" ? m.content : m.content.map((b: any) => b.text ?? "").join(""))).join("\n");
}

describe("compaction in a turn", () => {
  test("a large reported usage compacts between tool rounds: the next request carries the summary, the recent turns verbatim, and fits", async () => {
    const f = twoFakes([...firstTwoTurns(), { kind: "turn", turn: { text: "Done: beta is 2.", usage: { input: 6_000, output: 10 } } }], [{ kind: "turn", turn: { text: SUMMARY, usage: { input: 3_000, output: 80 } } }]);
    const p = makeProject(compactionConfig(f), FILES);
    const r = await startSession(p);
    r.session.submit({ text: "please look at the alpha settings" });
    await r.session.idle();
    r.session.submit({ text: "now check small.txt" });
    await r.session.idle();
    expect(f.main.violations).toEqual([]);
    expect(f.mini.violations).toEqual([]);
    expect(r.of("turn_completed").map((e) => e.stop_reason)).toEqual(["end_turn", "end_turn"]);

    // The summary request: the structured-summary instructions, the older part of the conversation, files touched.
    expect(f.mini.requests).toHaveLength(1);
    const ask = f.mini.requests[0]!.body;
    expect(JSON.stringify(ask.system)).toContain("## Next steps");
    const askText = summaryRequestText(ask);
    expect(askText).toContain("please look at the alpha settings");
    expect(askText).toContain("BIGSTART");
    expect(askText).toContain("Files read: big.txt");
    expect(ask.tools ?? []).toEqual([]);

    const [started] = r.of("compaction_started");
    const [done] = r.of("context_compacted");
    expect(started).toMatchObject({ reason: "threshold", model: "s", turn_id: r.of("turn_started")[1]!.turn_id });
    expect(started!.tokens_before).toBeGreaterThanOrEqual(19_200);
    expect(done).toMatchObject({ summary: SUMMARY, attempts: 1, model: "s" });
    expect(done!.tokens_after).toBeLessThan(done!.tokens_before / 2);
    expect(done!.tokens_after + MAX_OUT).toBeLessThanOrEqual(WINDOW);
    // `agent exec` tells the person on stderr.
    expect(describeEvent(started!)).toBe(`compacting the context (about ${started!.tokens_before} tokens) with s…`);
    expect(describeEvent(done!)).toBe(`context compacted: about ${done!.tokens_before} → ${done!.tokens_after} tokens`);

    // The request after the compaction: summary first, then the kept turns word for word; the big file is gone.
    expect(f.main.requests).toHaveLength(4);
    const next = f.main.requests[3]!.body;
    const sent = JSON.stringify(next.messages);
    expect(next.messages[0].role).toBe("user");
    expect(JSON.stringify(next.messages[0])).toContain("<context-summary>");
    expect(JSON.stringify(next.messages[0])).toContain("Tune the alpha settings.");
    expect(sent).toContain("Read it: the file lists the alpha settings.");
    expect(sent).toContain("now check small.txt");
    expect(sent).toContain("call_small");
    expect(sent).toContain("beta=2");
    expect(sent).not.toContain("BIGSTART");
    expect(sent).not.toContain("call_big");
    expect(sent).not.toContain("please look at the alpha settings");
    // It fits: the whole request body (4 characters a token, generous for JSON) plus the output reserve.
    expect(Math.ceil(JSON.stringify(next).length / 4) + next.max_tokens).toBeLessThanOrEqual(WINDOW);
    expect(next.max_tokens).toBe(MAX_OUT);

    // The transcript keeps everything for display; only the provider's view starts at the summary.
    expect(r.session.conversation.entries.some((e) => e.role === "tool_results" && e.results[0]!.output.includes("BIGSTART"))).toBe(true);
    expect(r.session.conversation.entries.find((e) => e.id === done!.kept_from_message_id)?.role).toBe("assistant");
  });

  test("when the turn's own request is summarized away, the summary carries it word for word", async () => {
    const f = twoFakes(
      [
        { kind: "turn", turn: { tool_calls: [readCall("call_big", "big.txt")], usage: { input: 19_200, output: 30 } } },
        { kind: "turn", turn: { text: "Continuing from the summary." } },
      ],
      [{ kind: "turn", turn: { text: SUMMARY } }],
    );
    const p = makeProject(compactionConfig(f), FILES);
    const r = await startSession(p);
    r.session.submit({ text: "please look at the alpha settings" });
    await r.session.idle();
    expect(r.of("context_compacted")[0]!.kept_from_message_id).toBeNull();
    const next = f.main.requests[1]!.body;
    expect(next.messages).toHaveLength(1);
    const text = JSON.stringify(next.messages[0]);
    expect(text).toContain("Tune the alpha settings.");
    expect(text).toContain("## Latest request (word for word)\\nplease look at the alpha settings");
    expect(text).not.toContain("BIGSTART");
  });

  test("a second compaction folds the first summary into the new one", async () => {
    const SECOND = "## Goal\nTune alpha, then beta.\n## Progress\nBoth read.\n## Decisions\nNone.\n## Next steps\nReport.\n## Files\nbig.txt";
    const readBig = (id: string): FakeStep => ({ kind: "turn", turn: { tool_calls: [readCall(id, "big.txt")], usage: { input: 19_200, output: 30 } } });
    const f = twoFakes(
      [readBig("call_1"), { kind: "turn", turn: { text: "Alpha is tuned.", usage: { input: 6_000, output: 10 } } }, readBig("call_2"), { kind: "turn", turn: { text: "Beta too.", usage: { input: 6_000, output: 10 } } }],
      [{ kind: "turn", turn: { text: SUMMARY } }, { kind: "turn", turn: { text: SECOND } }],
    );
    const p = makeProject(compactionConfig(f), FILES);
    const r = await startSession(p);
    r.session.submit({ text: "tune alpha" });
    await r.session.idle();
    r.session.submit({ text: "now beta" });
    await r.session.idle();
    expect(f.main.violations).toEqual([]);
    expect(r.of("context_compacted")).toHaveLength(2);
    const second = summaryRequestText(f.mini.requests[1]!.body);
    expect(second).toContain("<earlier-summary>\n## Goal\nTune the alpha settings.");
    const sent = JSON.stringify(f.main.requests[3]!.body.messages);
    expect(sent).toContain("Tune alpha, then beta.");
    expect(sent).not.toContain("Tune the alpha settings.");
    expect(sent).toContain("now beta");
    expect(r.of("turn_completed").map((e) => e.stop_reason)).toEqual(["end_turn", "end_turn"]);
    // The fold of the stored events agrees.
    expect(foldEvents(r.events).context).toEqual(r.session.conversation.context!);
  });

  test("cached input tokens count once: a report of 15,000 input tokens of which 12,000 were cache reads stays below the threshold", async () => {
    const steps = firstTwoTurns();
    steps[2] = { kind: "turn", turn: { tool_calls: [readCall("call_small", "small.txt")], usage: { input: 3_000, cache_read: 12_000, output: 40 } } };
    const f = twoFakes([...steps, { kind: "turn", turn: { text: "Done." } }], []);
    const p = makeProject(compactionConfig(f), FILES);
    const r = await startSession(p);
    r.session.submit({ text: "please look at the alpha settings" });
    await r.session.idle();
    r.session.submit({ text: "now check small.txt" });
    await r.session.idle();
    expect(r.session.conversation.entries.find((e) => e.role === "assistant" && e.usage?.cache_read_tokens === 12_000)).toBeDefined();
    expect(r.of("compaction_started")).toEqual([]);
    expect(f.mini.requests).toHaveLength(0);
    expect(r.of("turn_completed").map((e) => e.stop_reason)).toEqual(["end_turn", "end_turn"]);
  });

  test("a resumed session folds the stored events back to the same compacted context", async () => {
    const f = twoFakes(
      [...firstTwoTurns(), { kind: "turn", turn: { text: "Done.", usage: { input: 6_000, output: 10 } } }, { kind: "turn", turn: { text: "Resumed fine.", usage: { input: 6_100, output: 10 } } }],
      [{ kind: "turn", turn: { text: SUMMARY } }],
    );
    const p = makeProject(compactionConfig(f), FILES);
    const r = await startSession(p);
    r.session.submit({ text: "please look at the alpha settings" });
    await r.session.idle();
    r.session.submit({ text: "now check small.txt" });
    await r.session.idle();
    await r.session.close();

    const folded = foldEvents(r.events);
    expect(folded.context).toEqual(r.session.conversation.context!);
    expect(toProviderMessages(folded, false)).toEqual(toProviderMessages(r.session.conversation, false));

    const resumed = await startSession(p, { initialEvents: r.events });
    resumed.session.submit({ text: "and now?" });
    await resumed.session.idle();
    expect(resumed.of("turn_completed")[0]!.stop_reason).toBe("end_turn");
    const sent = JSON.stringify(f.main.requests[4]!.body.messages);
    expect(sent).toContain("<context-summary>");
    expect(sent).toContain("now check small.txt");
    expect(sent).toContain("and now?");
    expect(sent).not.toContain("BIGSTART");
    // No second compaction: the context after the first one is well below the threshold.
    expect(f.mini.requests).toHaveLength(1);
    await resumed.session.close();
  });
});

describe.each(["b_chat_completions", "b_responses"] as const)("compaction on %s", (dialect) => {
  test("the request after the compaction is valid for the dialect, starts from the summary and keeps the recent turns", async () => {
    const f = twoFakes([...firstTwoTurns(), { kind: "turn", turn: { text: "Done." } }], [{ kind: "turn", turn: { text: SUMMARY } }], dialect);
    const p = makeProject(compactionConfig(f), FILES);
    const r = await startSession(p);
    r.session.submit({ text: "please look at the alpha settings" });
    await r.session.idle();
    r.session.submit({ text: "now check small.txt" });
    await r.session.idle();
    expect(f.main.violations).toEqual([]);
    expect(f.mini.violations).toEqual([]);
    expect(r.of("turn_completed").map((e) => e.stop_reason)).toEqual(["end_turn", "end_turn"]);
    expect(JSON.stringify(f.mini.requests[0]!.body)).toContain("please look at the alpha settings");
    const sent = JSON.stringify(f.main.requests[3]!.body);
    expect(sent).toContain("Tune the alpha settings.");
    expect(sent).toContain("call_small");
    expect(sent).not.toContain("BIGSTART");
  });
});

describe("compaction after an overflow", () => {
  test("a request the provider refuses as too long is compacted once (keeping a smaller tail) and sent again", async () => {
    const tooLong: FakeStep = { kind: "error", status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 40000 tokens > 32000 maximum" } } };
    const f = twoFakes(
      [...firstTwoTurns().slice(0, 2), tooLong, { kind: "turn", turn: { text: "Fits now.", usage: { input: 5_000, output: 10 } } }],
      [{ kind: "turn", turn: { text: SUMMARY } }],
    );
    const p = makeProject(compactionConfig(f), FILES);
    const r = await startSession(p);
    r.session.submit({ text: "please look at the alpha settings" });
    await r.session.idle();
    r.session.submit({ text: "now check small.txt" });
    await r.session.idle();
    expect(r.of("compaction_started").map((e) => e.reason)).toEqual(["overflow"]);
    expect(r.of("turn_completed").map((e) => e.stop_reason)).toEqual(["end_turn", "end_turn"]);
    const sent = JSON.stringify(f.main.requests[3]!.body.messages);
    expect(sent).toContain("Tune the alpha settings.");
    expect(sent).toContain("now check small.txt");
    expect(sent).not.toContain("BIGSTART");
  });

  test("a second refusal after compacting ends the turn with the provider's error", async () => {
    const tooLong: FakeStep = { kind: "error", status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "prompt is too long" } } };
    const f = twoFakes([...firstTwoTurns().slice(0, 2), tooLong, tooLong], [{ kind: "turn", turn: { text: SUMMARY } }]);
    const p = makeProject(compactionConfig(f), FILES);
    const r = await startSession(p);
    r.session.submit({ text: "please look at the alpha settings" });
    await r.session.idle();
    r.session.submit({ text: "now check small.txt" });
    await r.session.idle();
    const ended = r.of("turn_completed")[1]!;
    expect(ended.stop_reason).toBe("error");
    expect(ended.error?.code).toBe("context_length_exceeded");
    expect(f.mini.requests).toHaveLength(1);
    expect(f.main.requests).toHaveLength(4);
  });
});

describe("compaction retries", () => {
  test("a provider error and an empty summary are retried, each time with a more stripped transcript; the empty one gets a stronger instruction", async () => {
    const f = twoFakes(
      [...firstTwoTurns(), { kind: "turn", turn: { text: "Done.", usage: { input: 6_000, output: 10 } } }],
      [
        { kind: "error", status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "prompt is too long" } } },
        { kind: "turn", turn: { text: " " } },
        { kind: "turn", turn: { text: SUMMARY } },
      ],
    );
    const p = makeProject(compactionConfig(f, "retry: { max_retries: 0 }, compaction_max_retries: 2"), FILES);
    const r = await startSession(p);
    r.session.submit({ text: "please look at the alpha settings" });
    await r.session.idle();
    r.session.submit({ text: "now check small.txt" });
    await r.session.idle();
    expect(f.mini.requests).toHaveLength(3);
    const [first, second, third] = f.mini.requests.map((q) => summaryRequestText(q.body)) as [string, string, string];
    // Attempt 1 shows the big tool output (cut to its first and last characters), attempt 2 only a few
    // hundred characters of it, attempt 3 none, and insists after the empty answer.
    expect(first).toContain("EARLYMARK");
    expect(first).toContain("BIGEND");
    expect(second).not.toContain("EARLYMARK");
    expect(second.length).toBeLessThan(first.length);
    expect(second).not.toContain("Your previous answer was empty");
    expect(third).toContain("[result of read: completed] [output omitted]");
    expect(third).toContain("Your previous answer was empty");
    expect(third.length).toBeLessThan(second.length + 400);

    expect(r.of("context_compacted")[0]!.attempts).toBe(3);
    const warnings = r.of("notice").map((n) => n.message);
    expect(warnings).toEqual([
      expect.stringContaining("compaction attempt 1 of 3 failed (the summary model failed: context_length_exceeded 400"),
      expect.stringContaining("compaction attempt 2 of 3 failed (the summary was empty)"),
    ]);
    expect(r.of("turn_completed").map((e) => e.stop_reason)).toEqual(["end_turn", "end_turn"]);
    expect(JSON.stringify(f.main.requests[3]!.body.messages)).toContain("Tune the alpha settings.");
  });

  test("after an empty answer every later attempt insists, also after a provider error in between", async () => {
    const f = twoFakes(
      [...firstTwoTurns(), { kind: "turn", turn: { text: "Done." } }],
      [
        { kind: "turn", turn: { text: " " } },
        { kind: "error", status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "bad request" } } },
        { kind: "turn", turn: { text: SUMMARY } },
      ],
    );
    const p = makeProject(compactionConfig(f, "retry: { max_retries: 0 }, compaction_max_retries: 2"), FILES);
    const r = await startSession(p);
    r.session.submit({ text: "please look at the alpha settings" });
    await r.session.idle();
    r.session.submit({ text: "now check small.txt" });
    await r.session.idle();
    const insists = f.mini.requests.map((q) => summaryRequestText(q.body).includes("Your previous answer was empty"));
    expect(insists).toEqual([false, true, true]);
    expect(r.of("context_compacted")).toHaveLength(1);
  });

  test("an interrupt during a compaction ends the turn as interrupted and changes nothing", async () => {
    const f = twoFakes([...firstTwoTurns(), { kind: "turn", turn: { text: "Later." } }], [{ kind: "turn", turn: { text: SUMMARY }, stallAfter: 2 }]);
    const p = makeProject(compactionConfig(f), FILES);
    const r = await startSession(p);
    r.session.submit({ text: "please look at the alpha settings" });
    await r.session.idle();
    r.session.submit({ text: "now check small.txt" });
    await waitFor(() => f.mini.stalls() === 1, "the summary stream to stall");
    r.session.interrupt();
    await r.session.idle();
    expect(r.of("turn_completed")[1]!.stop_reason).toBe("interrupted");
    expect(r.of("compaction_failed")[0]!.error.code).toBe("cancelled");
    expect(r.session.conversation.context).toBeUndefined();
    expect(unansweredCalls(r.session.conversation)).toEqual([]);
    expect(f.main.requests).toHaveLength(3);
  });

  test("with compaction_max_retries 0 one failure gives up: the turn ends with a typed error, history is intact, and the next turn compacts", async () => {
    const f = twoFakes(
      [...firstTwoTurns(), { kind: "turn", turn: { text: "Back on track.", usage: { input: 6_000, output: 10 } } }],
      [
        { kind: "error", status: 500, body: { type: "error", error: { type: "api_error", message: "internal error" } } },
        { kind: "turn", turn: { text: SUMMARY } },
      ],
    );
    const p = makeProject(compactionConfig(f, "retry: { max_retries: 0 }, compaction_max_retries: 0"), FILES);
    const r = await startSession(p);
    r.session.submit({ text: "please look at the alpha settings" });
    await r.session.idle();
    r.session.submit({ text: "now check small.txt" });
    await r.session.idle();
    const before = structuredClone(r.session.conversation);

    expect(f.mini.requests).toHaveLength(1);
    const ended = r.of("turn_completed")[1]!;
    expect(ended.stop_reason).toBe("error");
    expect(ended.error?.code).toBe("compaction_failed");
    expect(ended.error?.message).toContain("Nothing was lost: the conversation is unchanged. Send a message to try again, or start a fresh context with /clear.");
    expect(ended.error?.message).toContain("server 500");
    expect(r.of("compaction_failed")).toEqual([expect.objectContaining({ attempts: 1, error: ended.error })]);
    expect(r.of("context_compacted")).toEqual([]);
    // Nothing lost: no context cut, every entry there, every tool call answered; no model call was made.
    expect(r.session.conversation.context).toBeUndefined();
    expect(unansweredCalls(r.session.conversation)).toEqual([]);
    expect(r.session.conversation.entries.some((e) => e.role === "tool_results" && e.results[0]!.output.includes("BIGSTART"))).toBe(true);
    expect(f.main.requests).toHaveLength(3);

    r.session.submit({ text: "try again" });
    await r.session.idle();
    expect(r.of("turn_completed")[2]!.stop_reason).toBe("end_turn");
    expect(f.mini.requests).toHaveLength(2);
    expect(r.session.conversation.entries.slice(0, before.entries.length)).toEqual(before.entries);
    const sent = JSON.stringify(f.main.requests[3]!.body.messages);
    expect(sent).toContain("<context-summary>");
    expect(sent).toContain("try again");
  });
});
