// Facets and models of a running session, against the Messages-dialect HTTP fake (every request is
// captured): which facet a session starts in, /facet and /model switching what the next request carries
// (system prompt, tools, model), a facet's model pin, resume, and history attribution.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SessionCommandError } from "../../src/agent/commands/types.ts";
import type { EngineEvent } from "../../src/agent/events.ts";
import { buildHistory } from "../../src/daemon/history-items.ts";
import { startProviderFake, type FakeStep, type ProviderFake } from "../fakes/provider-fake.ts";
import { makeProject, startSession, type Project } from "./harness.ts";

let fakes: ProviderFake[] = [];
afterEach(async () => {
  for (const f of fakes) await f.stop();
  fakes = [];
});

function fake(answers: number): ProviderFake {
  const script: FakeStep[] = Array.from({ length: answers }, (_, i) => ({ kind: "turn", turn: { text: `answer ${i + 1}` } }));
  const f = startProviderFake("a_messages", script);
  fakes.push(f);
  return f;
}

function config(f: ProviderFake, extra = ""): string {
  return `providers:
  fake: { kind: { type: custom_a_compatible }, url: "${f.base}", auth: { type: static_key, key: sk-test-key-0123456789 } }
models:
  m: { provider: fake, class: full, context_window: 100000, provider_name: wire-m }
  big: { provider: fake, class: full, context_window: 200000, provider_name: wire-big }
defaults: { full: m }
default_permission_matcher: bypass
${extra}`;
}

const REVIEW = `---
description: Reviews the change
model: big
tools: [read, grep]
---
You are the REVIEW facet. Review, do not write.
`;

const system = (f: ProviderFake, i: number): string => (f.requests[i]!.body.system ?? []).map((b: { text: string }) => b.text).join("\n");
const tools = (f: ProviderFake, i: number): string[] => (f.requests[i]!.body.tools ?? []).map((t: { name: string }) => t.name).sort();
const userTexts = (f: ProviderFake, i: number): string =>
  JSON.stringify(f.requests[i]!.body.messages.filter((m: { role: string }) => m.role === "user"));

async function ask(r: Awaited<ReturnType<typeof startSession>>, text: string): Promise<void> {
  r.session.submit({ text });
  await r.session.idle();
}

async function commandError(run: Promise<unknown>): Promise<SessionCommandError> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SessionCommandError);
  return error as SessionCommandError;
}

describe("facet at session start", () => {
  test("an explicit facets.<name>.source wins over .agent/facets/<name>.md, which wins over the built-in", async () => {
    const f = fake(3);
    const files = { ".agent/facets/plan.md": "---\ndescription: project plan\n---\nPROJECT PLAN FACET", "prompts/plan.md": "EXPLICIT PLAN FACET" };
    const explicit = makeProject(config(f, "facets:\n  plan: { source: prompts/plan.md }\n"), files);
    const r1 = await startSession(explicit, { facet: "plan" });
    await ask(r1, "a");
    expect(system(f, 0)).toContain("EXPLICIT PLAN FACET");
    expect(system(f, 0)).not.toContain("PROJECT PLAN FACET");

    const fromFile = makeProject(config(f), files);
    const r2 = await startSession(fromFile, { facet: "plan" });
    await ask(r2, "b");
    expect(system(f, 1)).toContain("PROJECT PLAN FACET");
    expect(system(f, 1)).not.toContain("description:");

    const builtin = makeProject(config(f));
    const r3 = await startSession(builtin, { facet: "plan" });
    await ask(r3, "c");
    expect(system(f, 2)).toContain("plan mode");
  });

  test("default_facet serves interactive sessions, default_exec_facet headless ones; an explicit facet beats both", async () => {
    const f = fake(3);
    const p = makeProject(config(f, "active_session: { default_facet: plan, default_exec_facet: review }\n"), { ".agent/facets/review.md": REVIEW });
    const interactive = await startSession(p, { interactive: true });
    const headless = await startSession(p, { interactive: false });
    const explicit = await startSession(p, { interactive: false, facet: "execute" });
    const facets = await Promise.all([interactive, headless, explicit].map(async (r) => (await r.session.command("facet", [])).data?.facet));
    expect(facets).toEqual(["plan", "review", "execute"]);
    // The review facet pins `big`, and its tools list is all it offers (plus the loop's own tools).
    await ask(headless, "x");
    expect(f.requests[0]!.body.model).toBe("wire-big");
    // (tool_search is not offered: with eager loading every tool is there already.)
    expect(tools(f, 0)).toEqual(["exit_tool", "grep", "progress_update", "read"]);
  });
});

describe("switching", () => {
  test("/facet changes the next request's system prompt, keeps its tools byte for byte, and tells the model in a reminder", async () => {
    const write = { id: "call_w", name: "write", arguments: JSON.stringify({ path: "notes.txt", content: "x" }) };
    const f = startProviderFake("a_messages", [
      { kind: "turn", turn: { tool_calls: [write] } },
      { kind: "turn", turn: { text: "planned" } },
      { kind: "turn", turn: { tool_calls: [{ ...write, id: "call_w2" }] } },
      { kind: "turn", turn: { text: "done" } },
      { kind: "turn", turn: { text: "again" } },
    ]);
    fakes.push(f);
    const p = makeProject(config(f));
    const r = await startSession(p, { facet: "plan", interactive: true });
    await ask(r, "plan it");
    expect(tools(f, 0)).toEqual(expect.arrayContaining(["write", "edit", "shell", "read"]));
    expect(system(f, 0)).toContain("plan mode");
    // The plan facet refuses the write at call time, before any permission check, with words the model can act on.
    const refused = r.of("tool_call_completed")[0]!.result;
    expect(refused).toMatchObject({ name: "write", status: "error" });
    expect(refused.output).toContain("cannot run in the plan facet, which is read-only");
    expect(existsSync(join(p.root, "notes.txt"))).toBe(false);

    const result = await r.session.command("facet", ["execute"]);
    expect(result.message).toContain("facet: execute (was plan)");
    await ask(r, "do it");
    // Same tools, same order, same bytes: the provider's cached prefix of tools survives the switch.
    expect(JSON.stringify(f.requests[2]!.body.tools)).toBe(JSON.stringify(f.requests[0]!.body.tools));
    expect(r.of("tool_call_completed")[1]!.result.status).toBe("completed");
    expect(readFileSync(join(p.root, "notes.txt"), "utf8")).toBe("x");
    expect(system(f, 2)).not.toContain("plan mode");
    expect(userTexts(f, 2)).toContain('system-reminder name=\\"facet_switched\\"');
    expect(userTexts(f, 2)).toContain("from the plan facet to the execute facet");
    expect(r.of("facet_changed")).toEqual([{ type: "facet_changed", facet: "execute", previous: "plan", model: "m" }]);
    expect(r.of("turn_started").map((e) => e.facet)).toEqual(["plan", "execute"]);

    // Back to plan: the reminder says the write tools are refused; the list is still the same.
    await r.session.command("facet", ["plan"]);
    await ask(r, "again");
    expect(JSON.stringify(f.requests[4]!.body.tools)).toBe(JSON.stringify(f.requests[0]!.body.tools));
    expect(userTexts(f, 4)).toContain("still listed but are refused if called");
  });

  test("/model switches the model of the next request; a facet pin applies and leaving the facet returns to the session's model", async () => {
    const f = fake(4);
    const p = makeProject(config(f), { ".agent/facets/review.md": REVIEW });
    const r = await startSession(p, { interactive: true });
    await ask(r, "one");
    expect(f.requests[0]!.body.model).toBe("wire-m");

    await r.session.command("facet", ["review"]);
    await ask(r, "two");
    expect(f.requests[1]!.body.model).toBe("wire-big");
    expect(system(f, 1)).toContain("You are the REVIEW facet");

    await r.session.command("facet", ["execute"]);
    await ask(r, "three");
    expect(f.requests[2]!.body.model).toBe("wire-m");

    const changed = await r.session.command("model", ["big"]);
    expect(changed.data).toMatchObject({ model: "big", previous: "m", changed: true });
    await ask(r, "four");
    expect(f.requests[3]!.body.model).toBe("wire-big");
    expect(r.of("turn_started").map((e) => `${e.facet}/${e.model}`)).toEqual(["execute/m", "review/big", "execute/m", "execute/big"]);
  });

  test("unknown names are invalid_command listing what exists; switching during a turn is command_unavailable", async () => {
    const f = startProviderFake("a_messages", [{ kind: "turn", turn: { text: "slow answer" }, stallAfter: 1 }]);
    fakes.push(f);
    const p = makeProject(config(f));
    const r = await startSession(p, { interactive: true });
    const unknownFacet = await commandError(r.session.command("facet", ["nope"]));
    expect(unknownFacet.code).toBe("invalid_command");
    expect(unknownFacet.message).toContain("unknown facet 'nope'; available: execute, plan");
    const unknownModel = await commandError(r.session.command("model", ["gpt-nope"]));
    expect(unknownModel.code).toBe("invalid_command");
    expect(unknownModel.message).toContain("configured models: big, m");

    r.session.submit({ text: "go" });
    for (let i = 0; i < 400 && f.stalls() === 0; i++) await Bun.sleep(5);
    const busy = await commandError(r.session.command("facet", ["plan"]));
    expect(busy.code).toBe("command_unavailable");
    expect((await commandError(r.session.command("model", ["big"]))).code).toBe("command_unavailable");
    // Listing still works while the turn runs.
    expect((await r.session.command("facet", [])).data).toMatchObject({ facet: "execute", facets: ["execute", "plan"] });
    f.release();
    await r.session.idle();
    expect(r.of("facet_changed")).toEqual([]);
  });
});

describe("resume and history", () => {
  async function switchedSession(p: Project, f: ProviderFake): Promise<EngineEvent[]> {
    const r = await startSession(p, { interactive: true });
    await ask(r, "first");
    await r.session.command("model", ["big"]);
    await r.session.command("facet", ["plan"]);
    await r.session.close();
    expect(f.requests).toHaveLength(1);
    return r.events;
  }

  test("a resumed session keeps the facet and model it switched to", async () => {
    const f = fake(2);
    const p = makeProject(config(f));
    const events = await switchedSession(p, f);
    const resumed = await startSession(p, { interactive: true, initialEvents: events });
    expect((await resumed.session.command("facet", [])).data?.facet).toBe("plan");
    await ask(resumed, "second");
    expect(f.requests[1]!.body.model).toBe("wire-big");
    expect(resumed.session.engineRuntime.tools.refusal?.("write")).toContain("read-only");
    expect(system(f, 1)).toContain("plan mode");
  });

  test("a resumed session whose facet is gone from the config starts in its start facet, with a notice", async () => {
    const f = fake(2);
    const p = makeProject(config(f), { ".agent/facets/review.md": REVIEW });
    const r = await startSession(p, { interactive: true });
    await r.session.command("facet", ["review"]);
    await r.session.close();
    const { rmSync } = await import("node:fs");
    rmSync(`${p.root}/.agent/facets/review.md`);
    const resumed = await startSession(p, { interactive: true, initialEvents: r.events });
    expect((await resumed.session.command("facet", [])).data?.facet).toBe("execute");
    expect(resumed.notices.join("\n")).toContain("the session's facet review is no longer available");
  });

  test("history items after a switch carry the new facet and model", async () => {
    const f = fake(2);
    const p = makeProject(config(f));
    const events = await switchedSession(p, f);
    const resumed = await startSession(p, { interactive: true, initialEvents: events });
    resumed.session.notice("info", "between turns");
    await ask(resumed, "second");
    const all = [...events, ...resumed.events].filter((e) => e.type !== "part_delta");
    const records = all.map((e, i) => ({ seq: i + 1, at: 1000 + i, type: e.type, body: JSON.stringify(e) }));
    const { items } = buildHistory(records, []);
    const attributions = (kind: string) => items.filter((i) => i.kind === kind).map((i) => `${i.attribution.facet}/${i.attribution.model}`);
    expect(attributions("user_message")).toEqual(["execute/m", "plan/big"]);
    expect(attributions("notice")).toEqual(["plan/big"]);
    expect(attributions("assistant_part")).toEqual(["execute/m", "plan/big"]);
  });
});

test("the catalog lists every facet with its description, model pin and tools, without file paths", async () => {
  const { loadConfig } = await import("../../src/config/load.ts");
  const { facetCatalog } = await import("../../src/agent/facets/catalog.ts");
  const { defaultFacetColors } = await import("../../src/agent/context/facets.ts");
  const f = fake(0);
  const p = makeProject(config(f), { ".agent/facets/review.md": REVIEW });
  const facets = facetCatalog(loadConfig({ cwd: p.root, env: p.env }));
  expect(facets).toEqual([
    { name: "execute", source: "agent://facets/execute", description: null, model: null, read_only: false, tools: null, policies: [], colors: { light: "#1f6feb", dark: "#58a6ff" } },
    { name: "plan", source: "agent://facets/plan", description: null, model: null, read_only: true, tools: null, policies: [], colors: { light: "#9a6700", dark: "#d29922" } },
    { name: "review", source: "project", description: "Reviews the change", model: "big", read_only: false, tools: ["read", "grep"], policies: [], colors: defaultFacetColors("review") },
  ]);
});
