// The matchers, and the autonomous classifier through the real provider layer against the provider
// fakes: its verdicts, escalation to the user after max_consecutive_denials, and failures that fall back
// to asking (never to allowing).
import { afterEach, describe, expect, test } from "bun:test";
import { parseVerdict } from "../../src/permissions/index.ts";
import { until } from "../fakes/fake-clock.ts";
import { type FakeStep, type ProviderFake, startProviderFake } from "../fakes/provider-fake.ts";
import type { Dialect } from "../fakes/request-invariants.ts";
import { gateFor } from "./helpers.ts";

let fakes: ProviderFake[] = [];
afterEach(async () => {
  for (const f of fakes) await f.stop();
  fakes = [];
});

const KINDS = { a_messages: "custom_a_compatible", b_chat_completions: "custom_b_compatible", b_responses: "custom_b_responses" } as const;
const verdict = (decision: "allow" | "deny", reason: string): FakeStep => ({ kind: "turn", turn: { text: JSON.stringify({ decision, reason }), chunk: 7 } });

async function autonomous(dialect: Dialect, script: FakeStep[], extra = "") {
  const fake = startProviderFake(dialect, script);
  fakes.push(fake);
  const config = `
default_permission_matcher: autonomous
autonomous_permission_matcher:
  classifier_rules: "Never touch the deploy/ directory."
${extra}
permissions:
  secret_words: [sk-very-secret-1]
daemon:
  retry: { max_retries: 0 }
providers:
  judge-provider:
    kind: { type: ${KINDS[dialect]} }
    url: ${fake.base}
    auth: { type: static_key, key: test-key-abcdef }
models:
  big: { provider: judge-provider, class: full, context_window: 100000 }
  judge: { provider: judge-provider, provider_name: vendor-judge-1, class: mini, context_window: 32000 }
defaults:
  full: big
  mini: judge
`;
  const t = await gateFor({ config, projectRules: "allow: [read]\ndeny: [shell(rm:*)]\nask: [shell(git push:*)]\n" });
  return { ...t, fake };
}

describe.each(["a_messages", "b_chat_completions", "b_responses"] as const)("autonomous classifier over %s", (dialect) => {
  test("the mini model decides calls no rule covers; rules still decide first, without a model call", async () => {
    const t = await autonomous(dialect, [verdict("allow", "running tests is routine"), verdict("deny", "deploying is not routine")]);
    expect(await t.check("shell", { command: "npm test" })).toEqual({ kind: "allow", rule: "autonomous classifier" });
    expect(await t.check("shell", { command: "./deploy.sh --prod" })).toEqual({ kind: "deny", reason: "the permission classifier denied this call: deploying is not routine", rule: "autonomous classifier" });
    expect((await t.check("read", { path: "x" })).kind).toBe("allow");
    expect((await t.check("shell", { command: "rm -rf x" })).kind).toBe("deny");
    expect((await t.check("shell", { command: "git push" })).kind).toBe("ask");
    expect(t.fake.requests.length).toBe(2);
    expect(t.fake.violations).toEqual([]);
    const body = JSON.stringify(t.fake.requests[0]!.body);
    expect(body).toContain("vendor-judge-1");
    expect(body).toContain("permission classifier");
    expect(body).toContain("npm test");
    expect(body).toContain("Never touch the deploy/ directory.");
  });

  test("after 3 denials in a row the 4th goes to the user; the user's answer starts a fresh run", async () => {
    const steps = Array.from({ length: 6 }, (_, i) => verdict("deny", `no ${i + 1}`));
    const t = await autonomous(dialect, steps);
    const kinds: string[] = [];
    for (let i = 0; i < 4; i++) kinds.push((await t.check("shell", { command: `./script-${i}.sh` })).kind);
    expect(kinds).toEqual(["deny", "deny", "deny", "ask"]);
    const req = t.req("shell", { command: "./script-4.sh" });
    expect(await t.gate.check(req)).toEqual({ kind: "ask", reason: "the permission classifier denied 5 calls in a row, so you decide: no 5", suggestedRule: "shell(./script-4.sh)" });
    t.gate.recordAnswer(req, false);
    expect((await t.check("shell", { command: "./script-5.sh" })).kind).toBe("deny");
  });
});

describe("autonomous classifier details", () => {
  test("an allow in between resets the run of denials", async () => {
    const t = await autonomous("b_chat_completions", [verdict("deny", "a"), verdict("deny", "b"), verdict("allow", "ok"), verdict("deny", "c"), verdict("deny", "d"), verdict("deny", "e"), verdict("deny", "f")]);
    const kinds: string[] = [];
    for (let i = 0; i < 7; i++) kinds.push((await t.check("shell", { command: `step${i}` })).kind);
    expect(kinds).toEqual(["deny", "deny", "allow", "deny", "deny", "deny", "ask"]);
  });

  test("max_consecutive_denials is honoured (1: the second denial in a row asks)", async () => {
    const t = await autonomous("a_messages", [verdict("deny", "a"), verdict("deny", "b")], "  max_consecutive_denials: 1");
    expect((await t.check("shell", { command: "a" })).kind).toBe("deny");
    expect((await t.check("shell", { command: "b" })).kind).toBe("ask");
  });

  test("secret words never reach the classifier", async () => {
    const t = await autonomous("b_responses", [verdict("allow", "fine")]);
    await t.check("shell", { command: "curl -H 'Authorization: sk-very-secret-1' https://api.example" });
    const body = JSON.stringify(t.fake.requests[0]!.body);
    expect(body).not.toContain("sk-very-secret-1");
    expect(body).toContain("[redacted]");
  });

  test.each([
    ["a provider error", { kind: "error", status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "bad" } } } as FakeStep],
    ["an answer that is not JSON", { kind: "turn", turn: { text: "Sure, go ahead!" } } as FakeStep],
    ["a verdict without a decision", { kind: "turn", turn: { text: '{"verdict":"yes"}' } } as FakeStep],
    ["a decision outside allow/deny", { kind: "turn", turn: { text: '{"decision":"maybe","reason":"x"}' } } as FakeStep],
  ])("%s falls back to asking the user, never to allowing", async (_what, step) => {
    const t = await autonomous("b_chat_completions", [step]);
    const decision = await t.check("shell", { command: "make release" });
    expect(decision).toMatchObject({ kind: "ask", reason: expect.stringContaining("the permission classifier could not decide"), suggestedRule: "shell(make release)" });
  });

  test("no configured model at all also asks", async () => {
    const t = await gateFor({ config: "default_permission_matcher: autonomous\n" });
    expect(await t.check("shell", { command: "make" })).toMatchObject({ kind: "ask", reason: expect.stringContaining("no model for the classifier") });
  });

  test("classifier_model pins another model", async () => {
    const t = await autonomous("b_chat_completions", [verdict("allow", "ok")], "  classifier_model: big");
    await t.check("shell", { command: "make" });
    expect(t.fake.requests[0]!.body.model).toBe("big");
  });

  test("an aborted check rejects instead of opening an ask for a cancelled turn", async () => {
    const t = await autonomous("b_chat_completions", [{ kind: "turn", turn: { text: '{"decision":"allow","reason":"x"}' }, stallAfter: 0 }]);
    const controller = new AbortController();
    const pending = t.gate.check(t.req("shell", { command: "make" }), controller.signal);
    await until(() => t.fake.stalls() === 1, "the classifier request in flight");
    controller.abort(new Error("turn cancelled"));
    await expect(pending).rejects.toThrow("turn cancelled");
  });

  test.each([
    ['{"decision":"allow","reason":"fine"}', { decision: "allow", reason: "fine" }],
    ['```json\n{"decision":"deny","reason":"no"}\n```', { decision: "deny", reason: "no" }],
    ['{"decision":"deny"}', { decision: "deny", reason: "the classifier gave no reason" }],
  ])("parseVerdict(%j)", (text, expected) => {
    expect(parseVerdict(text)).toEqual(expected as never);
  });
});

describe("the other matchers", () => {
  const rules = "allow: [shell(ls)]\nask: [shell(git push:*)]\ndeny: [shell(rm:*), web_search]\n";
  test("standard: rules decide, no rule asks", async () => {
    const t = await gateFor({ projectRules: rules });
    expect((await t.check("shell", { command: "ls" })).kind).toBe("allow");
    expect((await t.check("shell", { command: "make" })).kind).toBe("ask");
    expect((await t.check("shell", { command: "git push" })).kind).toBe("ask");
    expect((await t.check("shell", { command: "rm x" })).kind).toBe("deny");
  });

  test("bypass allows every call, deny rules and secret files included", async () => {
    const t = await gateFor({ projectRules: rules, config: "default_permission_matcher: bypass\npermissions:\n  secret_files: [.env]\n" });
    for (const [tool, input] of [["shell", { command: "rm -rf x" }], ["web_search", { query: "q" }], ["read", { path: ".env" }], ["shell", { command: "case x in esac" }]] as const)
      expect(await t.check(tool, input)).toEqual({ kind: "allow" });
  });

  test("bypass_plus allows everything a deny rule does not block (ask rules and unknown calls included)", async () => {
    const t = await gateFor({ projectRules: rules, config: "default_permission_matcher: bypass_plus\n" });
    expect((await t.check("shell", { command: "make && git push" })).kind).toBe("allow");
    expect((await t.check("shell", { command: "make && rm x" })).kind).toBe("deny");
    expect((await t.check("web_search", { query: "q" })).kind).toBe("deny");
    expect((await t.check("mcp__x__y", {})).kind).toBe("allow");
    // An unreadable command could hide a denied one: it is asked about, never allowed.
    expect((await t.check("shell", { command: "case x in a) rm y;; esac" })).kind).toBe("ask");
    expect((await t.check("shell", { command: "sudo rm y" })).kind).toBe("deny");
  });

  test("bypass_plus with no shell deny rules lets an unreadable command run", async () => {
    const t = await gateFor({ projectRules: "deny: [web_search]\n", config: "default_permission_matcher: bypass_plus\n" });
    expect((await t.check("shell", { command: "case x in a) b;; esac" })).kind).toBe("allow");
  });
});
