// A tool-using turn with a thinking model that wants its reasoning back: the second request of the turn
// carries the first answer's reasoning on the assistant message with the tool call, or the strict
// vendor fake refuses it with the vendor's own 400 (DeepSeek V4, Kimi K2.6 on Moonshot).
import { afterEach, expect, test } from "bun:test";
import type { FakeStep } from "../fakes/provider-fake.ts";
import { startStrictFake, type StrictFake } from "../fakes/strict-fake.ts";
import { makeProject, startSession } from "./harness.ts";

let fake: StrictFake | undefined;
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

function config(catalogName: string, base: string, model: string): string {
  return `providers:
  p: { kind: { type: catalog, name: ${catalogName} }, url: "${base}", auth: { type: static_key, key: sk-test-key-0123456789 } }
defaults: { full: p/${model} }
default_permission_matcher: bypass
`;
}

const script = (reasoning: string | null): FakeStep[] => [
  {
    kind: "turn",
    turn: { ...(reasoning ? { reasoning: { text: reasoning } } : {}), tool_calls: [{ id: "call_a", name: "glob", arguments: JSON.stringify({ pattern: "*.txt" }) }] },
  },
  { kind: "turn", turn: { reasoning: { text: "Found it." }, text: "a.txt is there." } },
];

const assistantWithCalls = (body: any) => body.messages.find((m: any) => m.role === "assistant" && m.tool_calls?.length);

for (const [vendor, catalogName, model] of [
  ["deepseek", "deepseek", "deepseek-v4-pro"],
  ["moonshot", "moonshot", "kimi-k2.6"],
] as const) {
  test(`${model}: the second request of a tool turn carries reasoning_content; the vendor's rules pass`, async () => {
    fake = startStrictFake(vendor, script("I will list the text files."));
    const r = await startSession(makeProject(config(catalogName, fake.base, model), { "a.txt": "x\n" }));
    r.session.submit({ text: "find the text files" });
    await r.session.idle();
    expect(fake.violations).toEqual([]);
    expect(fake.requests).toHaveLength(2);
    expect(assistantWithCalls(fake.requests[1]!.body).reasoning_content).toBe("I will list the text files.");
    expect(r.of("turn_completed").map((e) => e.stop_reason)).toEqual(["end_turn"]);
  });

  test(`${model}: a tool call without reasoning still carries the field the vendor requires`, async () => {
    fake = startStrictFake(vendor, script(null));
    const r = await startSession(makeProject(config(catalogName, fake.base, model), { "a.txt": "x\n" }));
    r.session.submit({ text: "find the text files" });
    await r.session.idle();
    expect(fake.violations).toEqual([]);
    expect(typeof assistantWithCalls(fake.requests[1]!.body).reasoning_content).toBe("string");
  });
}
