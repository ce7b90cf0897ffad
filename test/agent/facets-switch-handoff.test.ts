// The plan handoff, against the Messages-dialect HTTP fake: leaving plan keeps the plan in context (and
// says so), or starts the model's context over from the plan (--new-context, refused when
// disable_context_clear is on); the plan becomes the goal when plan_handoff_activate_goal or --goal says so.
import { afterEach, describe, expect, test } from "bun:test";
import { SessionCommandError } from "../../src/agent/commands/types.ts";
import { startProviderFake, type ProviderFake } from "../fakes/provider-fake.ts";
import { makeProject, startSession } from "./harness.ts";

const PLAN = "# Port the parser\n1. Move lexer.ts\n2. Run the tests";

let fakes: ProviderFake[] = [];
afterEach(async () => {
  for (const f of fakes) await f.stop();
  fakes = [];
});

async function planned(extra = "") {
  const f = startProviderFake("a_messages", [
    { kind: "turn", turn: { text: PLAN } },
    { kind: "turn", turn: { text: "Executing." } },
  ]);
  fakes.push(f);
  const config = `providers:
  fake: { kind: { type: custom_a_compatible }, url: "${f.base}", auth: { type: static_key, key: sk-test-key-0123456789 } }
models:
  m: { provider: fake, class: full, context_window: 100000 }
defaults: { full: m }
default_permission_matcher: bypass
${extra}`;
  const r = await startSession(makeProject(config), { facet: "plan", interactive: true });
  r.session.submit({ text: "plan the port" });
  await r.session.idle();
  return { r, f };
}

const messages = (f: ProviderFake, i: number) => JSON.stringify(f.requests[i]!.body.messages);
const goalChanges = (events: { type: string }[]) => events.filter((e) => e.type === "goal_changed");

async function refused(run: Promise<unknown>): Promise<SessionCommandError> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SessionCommandError);
  return error as SessionCommandError;
}

describe("plan handoff", () => {
  test("in the same context: the plan stays, the model is told to carry it out, no goal by default", async () => {
    const { r, f } = await planned("daemon: { goal_driver: { max_continuations_per_goal: 0 } }\n");
    const result = await r.session.command("facet", ["execute"]);
    expect(result.message).toContain("The plan stays in context");
    const handoff = r.of("plan_handoff");
    expect(handoff).toEqual([{ type: "plan_handoff", from: "plan", to: "execute", plan_message_id: expect.any(String), new_context: false, goal_id: null }]);
    r.session.submit({ text: "go" });
    await r.session.idle();
    expect(messages(f, 1)).toContain("plan the port");
    expect(messages(f, 1)).toContain("Move lexer.ts");
    expect(messages(f, 1)).toContain("Carry out the plan you wrote above");
    expect(f.requests[1]!.body.tools.map((t: { name: string }) => t.name)).toContain("write");
    expect(goalChanges(r.events)).toEqual([]);
  });

  test("--new-context: the next request starts from the plan alone; plan_handoff_activate_goal makes it the goal", async () => {
    const { r, f } = await planned("daemon: { goal_driver: { max_continuations_per_goal: 0, plan_handoff_activate_goal: true } }\n");
    const result = await r.session.command("facet", ["execute", "--new-context"]);
    expect(result.message).toContain("new context from the plan");
    expect(r.events.map((e) => e.type).slice(-5)).toEqual(["facet_changed", "plan_handoff", "context_cleared", "user_message", "goal_changed"]);
    expect(r.of("user_message").at(-1)!.message.origin).toBe("handoff");
    const goal = r.of("goal_changed")[0]!;
    expect(goal).toMatchObject({ change: "activated", goal: { status: "active", origin: "plan_handoff", objective: "Carry out the plan: Port the parser" } });
    expect(r.of("plan_handoff")[0]!.goal_id).toBe(goal.goal.id);
    r.session.submit({ text: "go" });
    await r.session.idle();
    const sent = messages(f, 1);
    expect(sent).not.toContain("plan the port");
    expect(sent).toContain("Carry out this plan, made earlier in the plan facet");
    expect(sent).toContain("Move lexer.ts");
    expect(sent).toContain('system-reminder name=\\"goal_status\\"');
    expect(f.requests[1]!.body.messages[0].role).toBe("user");
  });

  test("--no-goal beats the config; --goal activates without it", async () => {
    const off = await planned("daemon: { goal_driver: { plan_handoff_activate_goal: true } }\n");
    await off.r.session.command("facet", ["execute", "--no-goal"]);
    expect(goalChanges(off.r.events)).toEqual([]);
    const on = await planned();
    await on.r.session.command("facet", ["execute", "--goal"]);
    expect(on.r.of("goal_changed").map((e) => e.change)).toEqual(["activated"]);
  });

  test("disable_context_clear refuses --new-context and leaves the facet as it was", async () => {
    const { r } = await planned("daemon: { disable_context_clear: true }\n");
    const error = await refused(r.session.command("facet", ["execute", "--new-context"]));
    expect(error.code).toBe("command_unavailable");
    expect(error.message).toContain("daemon.disable_context_clear");
    expect(r.of("facet_changed")).toEqual([]);
    expect((await r.session.command("facet", [])).data?.facet).toBe("plan");
  });

  test("handoff options need a plan and the plan facet", async () => {
    const f = startProviderFake("a_messages", []);
    fakes.push(f);
    const config = `providers:\n  fake: { kind: { type: custom_a_compatible }, url: "${f.base}", auth: { type: no_auth } }\nmodels:\n  m: { provider: fake, class: full, context_window: 100000 }\ndefaults: { full: m }\n`;
    const r = await startSession(makeProject(config), { facet: "plan", interactive: true });
    const noPlan = await refused(r.session.command("facet", ["execute", "--new-context"]));
    expect([noPlan.code, noPlan.message]).toEqual(["command_unavailable", "there is no plan to hand over: the plan facet has not answered yet"]);
    expect((await refused(r.session.command("facet", ["execute", "--fresh"]))).message).toContain("allowed: --new-context, --goal, --no-goal");
    await r.session.command("facet", ["execute"]);
    expect(r.of("plan_handoff")).toEqual([]);
    const notPlan = await refused(r.session.command("facet", ["plan", "--new-context"]));
    expect(notPlan.code).toBe("invalid_command");
  });
});
