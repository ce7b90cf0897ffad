// /rewind in the compiled binary's conversation view, in a real terminal: the picker lists the prompts,
// asks what goes back, names a file the user changed meanwhile and asks; keeping it restores the rest,
// the prompt comes back into the editor, and the model's next request no longer holds the rewound turn.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
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

let n = 0;
const call = (name: string, args: unknown) => ({ id: `call_${++n}`, name, arguments: JSON.stringify(args) });

describe("/rewind picker (compiled binary, real terminal)", () => {
  test("pick the first prompt, files and conversation; the file the user changed is named, kept on request", async () => {
    fake = startProviderFake("b_chat_completions", [
      { kind: "turn", turn: { text: "Writing a.", tool_calls: [call("write", { path: "a.txt", content: "A1\n" })] } },
      { kind: "turn", turn: { text: "ANSWER-ONE." } },
      { kind: "turn", turn: { text: "Writing both.", tool_calls: [call("write", { path: "a.txt", content: "A2\n" }), call("write", { path: "b.txt", content: "B2\n" })] } },
      { kind: "turn", turn: { text: "ANSWER-TWO." } },
      { kind: "turn", turn: { text: "ANSWER-AGAIN." } },
    ]);
    const p = scriptedProject("responses: [{ text: unused }]\n");
    writeFileSync(join(p.root, "a.txt"), "A0\n");
    writeFileSync(join(p.root, "b.txt"), "B0\n");
    writeFileSync(
      join(p.configDir, "config.yaml"),
      `providers:\n  local: { kind: { type: custom_b_compatible }, url: "${fake.base}" }\nmodels:\n  small: { provider: local, class: full, context_window: 32000 }\ndefaults: { full: small, mini: small }\ndefault_permission_matcher: standard\n`,
    );
    writeFileSync(join(p.configDir, "permissions.yaml"), "allow:\n  - edit\n");
    const t = terminals.start(p, ["new"]);
    await t.waitFor("Type a message", "the prompt editor");
    terminals.sessionOf(t, p);

    await send(t, "PROMPT-ONE");
    await t.waitFor("ANSWER-ONE.", "the first answer");
    await t.waitFor(/ready\s/, "the first turn to end");
    await send(t, "PROMPT-TWO");
    await t.waitFor("ANSWER-TWO.", "the second answer");
    await t.waitFor(/ready\s/, "the second turn to end");
    writeFileSync(join(p.root, "b.txt"), "B-user\n");

    await send(t, "/rewind");
    await t.waitFor("Rewind to before which prompt?", "the picker");
    expect(t.screen()).toContain("1. PROMPT-ONE  (1 file changed)");
    expect(t.screen()).toContain("2. PROMPT-TWO  (2 files changed)");
    t.write("1");
    await t.waitFor('Before "PROMPT-ONE": what goes back?', "the mode question");
    t.write("\r");
    await t.waitFor("Keep the changed files", "the conflict question");
    expect(t.screen()).toContain("b.txt");
    expect(readFileSync(join(p.root, "a.txt"), "utf8")).toBe("A2\n");
    t.write("1");
    await t.waitFor("Rewound to before prompt 1", "the rewind's answer");
    expect(readFileSync(join(p.root, "a.txt"), "utf8")).toBe("A0\n");
    expect(readFileSync(join(p.root, "b.txt"), "utf8")).toBe("B-user\n");
    // The prompt is back in the editor: Enter sends it again.
    await t.waitFor((s) => s.screen().includes("› PROMPT-ONE"), "the prompt back in the editor");
    t.write("\r");
    await t.waitFor("ANSWER-AGAIN.", "the answer to the prompt sent again");
    const last = JSON.stringify(fake.requests.at(-1)!.body.messages);
    expect(last).toContain("PROMPT-ONE");
    expect(last).not.toContain("PROMPT-TWO");
    expect(last).not.toContain("ANSWER-ONE");
    expect(fake.violations).toEqual([]);
    t.write("\x04");
    expect(await t.proc.exited).toBe(0);
  }, 120_000);
});
