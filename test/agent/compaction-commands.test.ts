// /compact and /clear on a real session (AgentSession.command), with the HTTP provider fakes for the
// session model and the summarizing mini model.
import { afterEach, describe, expect, test } from "bun:test";
import { startProviderFake, type FakeStep, type ProviderFake } from "../fakes/provider-fake.ts";
import { makeProject, startSession, waitFor } from "./harness.ts";
import { twoModelConfig } from "./two-model-config.ts";

let fakes: ProviderFake[] = [];
afterEach(async () => {
  for (const f of fakes) await f.stop();
  fakes = [];
});

const SUMMARY = "## Goal\nRename the flag.\n## Progress\nFound it.\n## Decisions\nNone.\n## Next steps\nEdit cli.ts.\n## Files\ncli.ts";

function setup(main: FakeStep[], mini: FakeStep[], daemon = "retry: { max_retries: 0 }", extra = "") {
  const m = startProviderFake("a_messages", main);
  const s = startProviderFake("a_messages", mini);
  fakes.push(m, s);
  const config = twoModelConfig({ main: m, mini: s, daemon, extra });
  return { main: m, mini: s, project: makeProject(config) };
}

const answer = (text: string): FakeStep => ({ kind: "turn", turn: { text, usage: { input: 500, output: 10 } } });
const text = (body: any) => JSON.stringify(body.messages);

async function twoTurns(r: Awaited<ReturnType<typeof startSession>>) {
  r.session.submit({ text: "where is the verbose flag defined?" });
  await r.session.idle();
  r.session.submit({ text: "and who reads it?" });
  await r.session.idle();
}

describe("/compact", () => {
  test("summarizes on demand with the user's instructions; the next request starts from the summary", async () => {
    const f = setup([answer("In cli.ts."), answer("main.ts reads it."), answer("Renamed.")], [{ kind: "turn", turn: { text: SUMMARY } }]);
    const r = await startSession(f.project);
    await twoTurns(r);
    const result = await r.session.command("compact", ["keep", "the", "flag", "names"]);
    expect(result.message).toMatch(/^Compacted the context from about \d+ to about \d+ tokens \(window 100000\)\.$/);
    expect(result.data).toMatchObject({ summary: SUMMARY });
    expect(JSON.stringify(f.mini.requests[0]!.body)).toContain("The user asks the summary to: keep the flag names");
    expect(r.of("compaction_started")[0]).toMatchObject({ reason: "manual", turn_id: null, model: "s" });
    expect(r.of("context_compacted")[0]!.turn_id).toBeNull();

    r.session.submit({ text: "rename it to --loud" });
    await r.session.idle();
    const sent = text(f.main.requests[2]!.body);
    expect(sent).toContain("Rename the flag.");
    expect(sent).toContain("rename it to --loud");
    // The latest turn stays word for word; the one before is in the summary only.
    expect(sent).toContain("and who reads it?");
    expect(sent).toContain("main.ts reads it.");
    expect(sent).not.toContain("where is the verbose flag defined?");
    expect(sent).not.toContain("In cli.ts.");
  });

  test("secret words never reach the summarizing model", async () => {
    const f = setup([answer("Noted."), answer("Done.")], [{ kind: "turn", turn: { text: SUMMARY } }], undefined, "permissions: { secret_words: [sw-hunter2-0123456789] }\n");
    const r = await startSession(f.project);
    r.session.submit({ text: "the deploy password is sw-hunter2-0123456789, remember it" });
    await r.session.idle();
    r.session.submit({ text: "and now?" });
    await r.session.idle();
    await r.session.command("compact", []);
    const sent = JSON.stringify(f.mini.requests[0]!.body);
    expect(sent).toContain("the deploy password is");
    expect(sent).not.toContain("sw-hunter2-0123456789");
  });

  test("is refused while a turn runs, with nothing to compact, and reports a failed summary as command_failed without changing anything", async () => {
    const f = setup(
      [{ kind: "turn", turn: { text: "In cli.ts, as far as I can see." }, stallAfter: 3 }, answer("main.ts reads it.")],
      [{ kind: "error", status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "bad summary request" } } }],
      "retry: { max_retries: 0 }, compaction_max_retries: 0",
    );
    const r = await startSession(f.project);
    await expect(r.session.command("compact", [])).rejects.toMatchObject({ code: "command_unavailable", message: "there is nothing to compact yet" });
    r.session.submit({ text: "where is the verbose flag defined?" });
    await waitFor(() => f.main.stalls() === 1, "the stream to stall");
    await expect(r.session.command("compact", [])).rejects.toMatchObject({ code: "command_unavailable", message: expect.stringContaining("while a turn is running") });
    f.main.release();
    await r.session.idle();
    r.session.submit({ text: "and who reads it?" });
    await r.session.idle();
    const before = structuredClone(r.session.conversation);
    const failed = r.session.command("compact", []);
    await expect(failed).rejects.toMatchObject({ code: "command_failed", message: expect.stringContaining("Nothing was lost") });
    expect(r.session.conversation).toEqual(before);
    expect(r.of("compaction_failed")).toHaveLength(1);
  });

  test("input sent while /compact runs waits in the queue and runs after it, on the compacted context", async () => {
    const f = setup([answer("In cli.ts."), answer("main.ts reads it."), answer("Queued answer.")], [{ kind: "turn", turn: { text: SUMMARY }, stallAfter: 2 }]);
    const r = await startSession(f.project);
    await twoTurns(r);
    const compacting = r.session.command("compact", []);
    await waitFor(() => f.mini.stalls() === 1, "the summary stream to stall");
    expect(r.session.busy).toBe(true);
    expect(r.session.submit({ text: "next step please" }).queued).toBe(true);
    f.mini.release();
    await compacting;
    await r.session.idle();
    expect(r.of("turn_completed").map((e) => e.stop_reason)).toEqual(["end_turn", "end_turn", "end_turn"]);
    expect(text(f.main.requests[2]!.body)).toContain("<context-summary>");
  });

  test("the context_usage reminder counts the compacted context: stale reports do not count, and its levels start over", async () => {
    const usage = (input: number, text: string): FakeStep => ({ kind: "turn", turn: { text, usage: { input, output: 10 } } });
    const f = setup([usage(500, "one"), usage(60_000, "two"), usage(61_000, "three"), usage(55_000, "four"), usage(56_000, "five")], [{ kind: "turn", turn: { text: SUMMARY } }]);
    const r = await startSession(f.project);
    for (const prompt of ["first", "second", "third"]) {
      r.session.submit({ text: prompt });
      await r.session.idle();
    }
    const reminders = (n: number) => (text(f.main.requests[n]!.body).match(/The conversation uses about (\d+)%/g) ?? []);
    expect(reminders(2)).toEqual(["The conversation uses about 60%"]);
    await r.session.command("compact", []);
    r.session.submit({ text: "fourth" });
    await r.session.idle();
    // Only the kept copy from the third turn: the 61,000 reported before the compaction is not this context's size.
    expect(reminders(3)).toEqual(["The conversation uses about 60%"]);
    r.session.submit({ text: "fifth" });
    await r.session.idle();
    expect(reminders(4)).toEqual(["The conversation uses about 60%", "The conversation uses about 55%"]);
  });

  test("interrupt cancels a running /compact; the context is unchanged", async () => {
    const f = setup([answer("In cli.ts."), answer("main.ts reads it.")], [{ kind: "turn", turn: { text: SUMMARY }, stallAfter: 2 }]);
    const r = await startSession(f.project);
    await twoTurns(r);
    const compacting = r.session.command("compact", []);
    await waitFor(() => f.mini.stalls() === 1, "the summary stream to stall");
    r.session.interrupt();
    await expect(compacting).rejects.toMatchObject({ code: "command_unavailable", message: expect.stringContaining("interrupted") });
    expect(r.session.conversation.context).toBeUndefined();
    expect(r.session.busy).toBe(false);
  });
});

describe("/clear", () => {
  test("starts a fresh context: the next request holds only the new prompt, the transcript keeps everything", async () => {
    const f = setup([answer("In cli.ts."), answer("main.ts reads it."), answer("Fresh start.")], []);
    const r = await startSession(f.project);
    await twoTurns(r);
    const result = await r.session.command("clear", []);
    expect(result.message).toContain("Context cleared");
    expect(r.of("context_cleared")).toHaveLength(1);
    r.session.submit({ text: "hello again" });
    await r.session.idle();
    const body = f.main.requests[2]!.body;
    expect(body.messages).toHaveLength(1);
    expect(text(body)).toContain("hello again");
    expect(r.session.conversation.entries.filter((e) => e.role === "user")).toHaveLength(3);
    await expect(r.session.command("clear", ["now"])).rejects.toMatchObject({ code: "invalid_command" });
  });

  test("daemon.disable_context_clear refuses /clear, naming the setting; /compact still works", async () => {
    const f = setup([answer("In cli.ts."), answer("main.ts reads it.")], [{ kind: "turn", turn: { text: SUMMARY } }], "retry: { max_retries: 0 }, disable_context_clear: true");
    const r = await startSession(f.project);
    await twoTurns(r);
    await expect(r.session.command("clear", [])).rejects.toMatchObject({ code: "command_unavailable", message: expect.stringContaining("daemon.disable_context_clear") });
    expect(r.of("context_cleared")).toEqual([]);
    await r.session.command("compact", []);
    expect(r.of("context_compacted")).toHaveLength(1);
  });
});
