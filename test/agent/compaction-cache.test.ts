// Compaction by the session's own model (the default): the summary request is the session's next request
// (same system prompt, same tools, the previous request's messages as its prefix) with the summary
// instruction at the end, so the provider's cached prefix is reused; and the useful-context cap that
// compacts a very large window long before its threshold. Against the HTTP provider fakes, whose captured
// requests are what the assertions read.
import { afterEach, describe, expect, test } from "bun:test";
import { startProviderFake, type FakeStep, type ProviderFake } from "../fakes/provider-fake.ts";
import type { Dialect } from "../fakes/request-invariants.ts";
import { makeProject, startSession } from "./harness.ts";
import { FILES, firstTwoTurns, SUMMARY } from "./compaction-fixtures.ts";

let fakes: ProviderFake[] = [];
afterEach(async () => {
  for (const f of fakes) await f.stop();
  fakes = [];
});

const KINDS: Record<Dialect, string> = { a_messages: "custom_a_compatible", b_chat_completions: "custom_b_compatible", b_responses: "custom_b_responses" };

function config(f: ProviderFake, dialect: Dialect, model: string, daemon = ""): string {
  return `providers:
  fake: { kind: { type: ${KINDS[dialect]} }, url: "${f.base}", auth: { type: static_key, key: sk-test-key-0123456789 } }
models:
  m: { provider: fake, class: full, ${model} }
defaults: { full: m }
default_permission_matcher: bypass
daemon: { retry: { max_retries: 0 }${daemon} }
`;
}

/** A request's messages as JSON, without cache breakpoints (the dialect moves them to the newest message on every request). */
const messagesOf = (body: any): string[] => (body.messages ?? body.input).map((m: unknown) => JSON.stringify(m).replace(/,"cache_control":\{"type":"ephemeral"\}/g, ""));

describe.each(["a_messages", "b_chat_completions"] as const)("compaction reuses the cache on %s", (dialect) => {
  test("the summary request is the session's own request plus an instruction: same system, tools and message prefix, same model", async () => {
    const f = startProviderFake(dialect, [...firstTwoTurns(), { kind: "turn", turn: { text: SUMMARY } }, { kind: "turn", turn: { text: "Done: beta is 2." } }]);
    fakes.push(f);
    const p = makeProject(config(f, dialect, "context_window: 32000, compaction_threshold: 0.6, max_output_tokens_per_turn: 4096"), FILES);
    const r = await startSession(p);
    r.session.submit({ text: "please look at the alpha settings" });
    await r.session.idle();
    r.session.submit({ text: "now check small.txt" });
    await r.session.idle();
    expect(f.violations).toEqual([]);
    expect(r.of("turn_completed").map((e) => e.stop_reason)).toEqual(["end_turn", "end_turn"]);
    expect(f.requests).toHaveLength(5);
    const [previous, summary, next] = [f.requests[2]!.body, f.requests[3]!.body, f.requests[4]!.body];

    // Same model, system prompt and tools, byte for byte; the previous request's messages are the prefix.
    expect(summary.model).toBe(previous.model);
    expect(JSON.stringify(summary.system ?? null)).toBe(JSON.stringify(previous.system ?? null));
    expect(JSON.stringify(summary.tools)).toBe(JSON.stringify(previous.tools));
    const before = messagesOf(previous);
    expect(messagesOf(summary).slice(0, before.length)).toEqual(before);
    // What came since (the small file's read) and then the instruction, at the end.
    const added = messagesOf(summary).slice(before.length).join("\n");
    expect(added).toContain("beta=2");
    expect(added).toContain("Do not call any tool and do not continue the task");
    expect(added).toContain("## Next steps");
    expect(added).toContain("Files read: big.txt, small.txt");
    expect(summary.tool_choice).toBeUndefined();

    expect(r.of("compaction_started")[0]).toMatchObject({ reason: "threshold", model: "m" });
    expect(r.of("context_compacted")[0]).toMatchObject({ summary: SUMMARY, attempts: 1, model: "m" });
    const sent = JSON.stringify(next);
    expect(sent).toContain("<context-summary>");
    expect(sent).toContain("Tune the alpha settings.");
    expect(sent).not.toContain("BIGSTART");
    expect(sent).not.toContain("Do not call any tool");
  });
});

describe("the useful-context cap", () => {
  const huge = (input: number): FakeStep[] => [
    { kind: "turn", turn: { text: "Read it.", usage: { input, output: 10 } } },
    { kind: "turn", turn: { text: SUMMARY } },
    { kind: "turn", turn: { text: "Go on." } },
  ];

  test("a 1M-token window compacts at 200k tokens (daemon.compaction_context_cap), not near its threshold", async () => {
    const f = startProviderFake("a_messages", huge(210_000));
    fakes.push(f);
    const r = await startSession(makeProject(config(f, "a_messages", "context_window: 1000000")));
    r.session.submit({ text: "first" });
    await r.session.idle();
    r.session.submit({ text: "second" });
    await r.session.idle();
    expect(r.of("compaction_started")).toEqual([expect.objectContaining({ reason: "threshold", model: "m" })]);
    expect(r.of("compaction_started")[0]!.tokens_before).toBeGreaterThanOrEqual(210_000);
    expect(JSON.stringify(f.requests[2]!.body.messages)).toContain("<context-summary>");
  });

  test("compaction_context_cap: 0 leaves the window's own threshold", async () => {
    const f = startProviderFake("a_messages", huge(210_000));
    fakes.push(f);
    const r = await startSession(makeProject(config(f, "a_messages", "context_window: 1000000", ", compaction_context_cap: 0")));
    r.session.submit({ text: "first" });
    await r.session.idle();
    r.session.submit({ text: "second" });
    await r.session.idle();
    expect(r.of("compaction_started")).toEqual([]);
    expect(JSON.stringify(f.requests[1]!.body.messages)).not.toContain("<context-summary>");
  });
});
