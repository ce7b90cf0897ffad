// Goals on the scripted provider: the continuation limit (exactly N automatic turns while the model keeps
// the goal open), 0 disables continuation but keeps the tools, approval by the user (approve, reject,
// headless), auto-accept, completion, and the goal surviving a resume.
import { describe, expect, test } from "bun:test";
import type { EngineEvent } from "../../src/agent/events.ts";
import { makeProject, probeTool, scriptedConfig, startSession, waitFor } from "./harness.ts";

const driver = (settings: string) => scriptedConfig(`daemon: { goal_driver: { ${settings} } }\n`);
const propose = `  - tool_calls:\n      - { name: goal_propose, arguments: { objective: "port the parser", criteria: "tests pass" } }\n`;
const texts = (from: number, count: number) => Array.from({ length: count }, (_, i) => `  - text: "answer ${from + i}"\n`).join("");
const changes = (events: EngineEvent[]) => events.flatMap((e) => (e.type === "goal_changed" ? [e.change] : []));
const textOf = (e: Extract<EngineEvent, { type: "user_message" }>) => (e.message.content[0] as { text: string }).text;

describe("goal continuation", () => {
  test("while the model keeps the goal open, the session continues exactly max_continuations_per_goal times", async () => {
    // Enough scripted answers for more continuations than allowed: extra ones would run if the limit failed.
    const p = makeProject(driver("max_continuations_per_goal: 3, agent_goal_auto_accept: true"), { "script.yaml": `responses:\n${propose}${texts(1, 8)}` });
    const r = await startSession(p);
    r.session.submit({ text: "port the parser" });
    await r.session.idle();
    expect(r.of("turn_started")).toHaveLength(4);
    const continuations = r.of("user_message").filter((e) => e.message.origin === "continuation");
    expect(continuations).toHaveLength(3);
    expect(textOf(continuations[0]!)).toContain('<system-reminder name="goal_status">');
    expect(textOf(continuations[0]!)).toContain("Goal: port the parser");
    expect(textOf(continuations[2]!)).toContain("Automatic continuation 3 of 3");
    expect(changes(r.events)).toEqual(["proposed", "activated", "continued", "continued", "continued", "limit_reached"]);
    expect(r.of("notice").at(-1)!.message).toContain("still open after 3 automatic continuations");
    expect(r.of("turn_completed").map((e) => e.stop_reason)).toEqual(["end_turn", "end_turn", "end_turn", "end_turn"]);
  });

  test("0 disables continuation but keeps the goal and its tools", async () => {
    const update = `  - tool_calls:\n      - { name: goal_update, arguments: { progress: "lexer done" } }\n`;
    const p = makeProject(driver("max_continuations_per_goal: 0, agent_goal_auto_accept: true"), { "script.yaml": `responses:\n${propose}${update}${texts(1, 3)}` });
    const r = await startSession(p);
    r.session.submit({ text: "go" });
    await r.session.idle();
    expect(r.of("turn_started")).toHaveLength(1);
    expect(changes(r.events)).toEqual(["proposed", "activated", "updated"]);
    expect(r.of("goal_changed").at(-1)!.goal).toMatchObject({ status: "active", progress: "lexer done", continuations: 0 });
    expect(r.of("tool_call_completed").map((e) => e.result.status)).toEqual(["completed", "completed"]);
    expect(r.of("tool_call_completed")[0]!.result.output).toContain("does not continue automatically");
  });

  test("completing the goal stops the continuations", async () => {
    const complete = `  - tool_calls:\n      - { name: goal_complete, arguments: { summary: "parser ported, tests pass" } }\n`;
    const p = makeProject(driver("max_continuations_per_goal: 5, agent_goal_auto_accept: true"), { "script.yaml": `responses:\n${propose}  - text: first\n${complete}${texts(1, 5)}` });
    const r = await startSession(p);
    r.session.submit({ text: "go" });
    await r.session.idle();
    // Turn 1 proposes and answers; one continuation completes the goal and answers; then nothing more.
    expect(r.of("turn_started")).toHaveLength(2);
    expect(changes(r.events)).toEqual(["proposed", "activated", "continued", "completed"]);
    expect(r.of("goal_changed").at(-1)!.goal).toMatchObject({ status: "completed", outcome: "parser ported, tests pass" });
  });

  test("an interrupted turn does not continue", async () => {
    const slow = `  - tool_calls:\n      - { name: probe, arguments: { n: 1 } }\n`;
    const p = makeProject(driver("max_continuations_per_goal: 5, agent_goal_auto_accept: true"), { "script.yaml": `responses:\n${propose}  - text: first\n${slow}${texts(1, 6)}` });
    const probe = probeTool("probe");
    const r = await startSession(p, { extraTools: [probe.tool] });
    r.session.submit({ text: "go" });
    await waitFor(() => probe.state.started === 1, "the tool of the first continuation");
    r.session.interrupt();
    await r.session.idle();
    expect(r.of("turn_completed").map((e) => e.stop_reason)).toEqual(["end_turn", "interrupted"]);
    expect(r.of("turn_started")).toHaveLength(2);
  });
});

describe("goal approval", () => {
  async function proposed(answer: { decision: "approve" } | { decision: "reject"; message?: string }) {
    const complete = `  - tool_calls:\n      - { name: goal_complete, arguments: { summary: "done" } }\n`;
    const p = makeProject(driver("max_continuations_per_goal: 2"), { "script.yaml": `responses:\n${propose}${complete}${texts(1, 4)}` });
    const r = await startSession(p, { interactive: true });
    r.session.submit({ text: "go" });
    await waitFor(() => r.of("interrogative_opened").length === 1, "the approval question");
    const question = r.of("interrogative_opened")[0]!.interrogative;
    expect(question).toMatchObject({ kind: "goal_approval", goal: "Goal: port the parser\nDone when: tests pass" });
    expect(() => r.session.answer(question.id, { decision: "allow_once" })).toThrow("allowed: approve, reject");
    r.session.answer(question.id, answer);
    await r.session.idle();
    return r;
  }

  test("approve: the goal becomes active and the tool result says so", async () => {
    const r = await proposed({ decision: "approve" });
    expect(r.of("tool_call_completed")[0]!.result.output).toContain("The user approved the goal; it is active.");
    expect(changes(r.events)).toEqual(["proposed", "activated", "completed"]);
  });

  test("reject: the goal is rejected with the user's reason, and nothing continues", async () => {
    const r = await proposed({ decision: "reject", message: "too broad" });
    const result = r.of("tool_call_completed")[0]!.result;
    expect(result.output).toContain("The user rejected the goal: too broad");
    expect(changes(r.events)).toEqual(["proposed", "rejected"]);
    expect(r.of("goal_changed").at(-1)!.goal).toMatchObject({ status: "rejected", outcome: "too broad" });
    // goal_complete afterwards finds no active goal.
    expect(r.of("tool_call_completed")[1]!.result).toMatchObject({ status: "error", output: expect.stringContaining("no active goal") });
    expect(r.of("turn_started")).toHaveLength(1);
  });

  test("headless runs, where nobody can approve, do not offer the goal tools (unless proposals are accepted on their own)", async () => {
    const p = makeProject(driver("max_continuations_per_goal: 2"), { "script.yaml": `responses:\n${propose}${texts(1, 3)}` });
    const r = await startSession(p, { interactive: false });
    expect(r.session.engineRuntime.toolSpecs().map((t) => t.name)).not.toContain("goal_propose");
    r.session.submit({ text: "go" });
    await r.session.idle();
    expect(r.of("interrogative_opened")).toEqual([]);
    expect(r.of("tool_call_completed")[0]!.result).toMatchObject({ status: "error", output: expect.stringContaining("There is no tool named `goal_propose`") });
    expect(changes(r.events)).toEqual([]);
    expect(r.of("turn_started")).toHaveLength(1);
    const auto = await startSession(makeProject(driver("agent_goal_auto_accept: true"), { "script.yaml": `responses:\n${texts(1, 1)}` }), { interactive: false });
    expect(auto.session.engineRuntime.toolSpecs().map((t) => t.name)).toEqual(expect.arrayContaining(["goal_propose", "goal_update", "goal_complete"]));
  });

  test("a second proposal while a goal is open is refused", async () => {
    const p = makeProject(driver("max_continuations_per_goal: 0, agent_goal_auto_accept: true"), { "script.yaml": `responses:\n${propose}${propose}${texts(1, 2)}` });
    const r = await startSession(p);
    r.session.submit({ text: "go" });
    await r.session.idle();
    expect(r.of("tool_call_completed")[1]!.result).toMatchObject({ status: "error", output: expect.stringContaining("A goal is already active") });
  });
});

test("a resumed session has its goal back, continuation count included", async () => {
  const p = makeProject(driver("max_continuations_per_goal: 1, agent_goal_auto_accept: true"), { "script.yaml": `responses:\n${propose}${texts(1, 6)}` });
  const first = await startSession(p);
  first.session.submit({ text: "go" });
  await first.session.idle();
  expect(changes(first.events)).toEqual(["proposed", "activated", "continued", "limit_reached"]);
  await first.session.close();
  const resumed = await startSession(p, { initialEvents: first.events });
  resumed.session.submit({ text: "keep going" });
  await resumed.session.idle();
  // The limit was used up before the resume: the user's turn runs, no automatic one follows.
  expect(resumed.of("turn_started")).toHaveLength(1);
  expect(changes(resumed.events)).toEqual([]);
});

test("goal tools need no permission, even under the standard matcher", async () => {
  const p = makeProject(scriptedConfig("default_permission_matcher: standard\ndaemon: { goal_driver: { max_continuations_per_goal: 0, agent_goal_auto_accept: true } }\n"), {
    "script.yaml": `responses:\n${propose}${texts(1, 2)}`,
  });
  const r = await startSession(p, { interactive: true });
  r.session.submit({ text: "go" });
  await r.session.idle();
  expect(r.of("interrogative_opened")).toEqual([]);
  expect(changes(r.events)).toEqual(["proposed", "activated"]);
});
