// Issue 27 item 1: a tool call whose provider id repeats within a session is shown like any other. A
// local OpenAI-compatible server (here the Chat Completions fake) sends `call_1` for every call; the
// compiled binary's view must still show each call live, allowed or denied, in a real terminal.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary } from "../helpers/binary.ts";
import { startProviderFake, type ProviderFake } from "../fakes/provider-fake.ts";
import { scriptedProject, send, Terminals } from "./tui-harness.ts";

const terminals = new Terminals();
let fake: ProviderFake;

beforeAll(() => ensureBinary(), 180_000);
afterAll(async () => {
  await terminals.closeAll();
  await fake?.stop();
}, 60_000);

const call = (name: string, args: unknown) => ({ id: "call_1", name, arguments: JSON.stringify(args) });

describe("tool calls whose provider id repeats (compiled binary, real terminal)", () => {
  test("every call with the reused id `call_1` is shown live: a glob, an allowed shell, a denied shell", async () => {
    fake = startProviderFake("b_chat_completions", [
      { kind: "turn", turn: { text: "Looking.", tool_calls: [call("glob", { pattern: "*.yaml" })] } },
      { kind: "turn", turn: { text: "First answer." } },
      { kind: "turn", turn: { text: "Running it.", tool_calls: [call("shell", { command: "echo second-call-ran" })] } },
      { kind: "turn", turn: { text: "Second answer." } },
      { kind: "turn", turn: { text: "Trying again.", tool_calls: [call("shell", { command: "echo third-call" })] } },
      { kind: "turn", turn: { text: "Third answer." } },
    ]);
    const p = scriptedProject("responses: [{ text: unused }]\n");
    // The user's own provider (global config): a project's would wait for trust.
    writeFileSync(
      join(p.configDir, "config.yaml"),
      `providers:
  local: { kind: { type: custom_b_compatible }, url: "${fake.base}" }
models:
  small: { provider: local, class: full, context_window: 32000 }
defaults: { full: small, mini: small }
default_permission_matcher: standard
`,
    );
    const t = terminals.start(p, ["new"]);
    await t.waitFor("Type a message", "the prompt editor");
    terminals.sessionOf(t, p);

    await send(t, "one");
    await t.waitFor("First answer.", "the first answer");
    expect(t.text()).toMatch(/glob \*\.yaml/);
    await t.waitFor(/ready\s/, "the first turn to end");

    await send(t, "two");
    await t.waitFor("Allow shell echo second-call-ran?", "the permission dialog of the second call");
    t.write("1");
    await t.waitFor("Second answer.", "the second answer");
    // The call is on the screen with its result, as the first one was.
    expect(t.text()).toMatch(/shell echo second-call-ran/);
    expect(t.text()).toContain("second-call-ran\n");
    await t.waitFor(/ready\s/, "the second turn to end");

    await send(t, "three");
    await t.waitFor("Allow shell echo third-call?", "the permission dialog of the third call");
    t.write("4");
    await t.waitFor((s) => s.screen().includes("message:"), "the deny message field");
    t.write("\r");
    await t.waitFor("Third answer.", "the third answer");
    expect(t.text()).toMatch(/shell echo third-call/);
    expect(t.text()).toMatch(/⎿ denied/);
    expect(fake.violations).toEqual([]);
    t.write("\x04");
    expect(await t.proc.exited).toBe(0);
  }, 120_000);

  test("the demo after /clear replays its scripted ids: the second glob shows too, and prompts past the script get its last answer (item 5)", async () => {
    const p = scriptedProject("responses: [{ text: unused }]\n");
    rmSync(join(p.root, ".agent"), { recursive: true });
    const t = terminals.start(p, ["new", "--demo"]);
    await t.waitFor("Type a message", "the prompt editor");
    terminals.sessionOf(t, p);
    const globs = () => t.text().split("● glob *").length - 1;
    const ready = (what: string) => t.waitFor((s) => /ready\s/.test(s.screen()), what);

    await send(t, "show me");
    await t.waitFor("Above is the result of a real", "the demo's second answer");
    await ready("the first turn to end");
    expect(globs()).toBe(1);
    await send(t, "/clear");
    await t.waitFor("context cleared", "the context cleared");
    await send(t, "again");
    await t.waitFor((s) => s.text().split("Above is the result of a real").length - 1 === 2, "the demo's answers again");
    await ready("the second turn to end");
    expect(globs()).toBe(2);

    for (const prompt of ["three", "four", "five", "six"]) {
      await send(t, prompt);
      await t.waitFor(new RegExp(`^› ${prompt}\\n\\n\\(offline demo\\)`, "m"), `the scripted answer to ${prompt}`);
      await ready(`the turn of ${prompt} to end`);
    }
    expect(t.text()).toContain("The scripted answers are over");
    expect(t.text()).not.toContain("■ failed");
    t.write("\x04");
    expect(await t.proc.exited).toBe(0);
  }, 120_000);
});
