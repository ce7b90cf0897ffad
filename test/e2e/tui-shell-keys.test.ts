// Issue 37 items 3 and 5 in a real terminal (compiled binary): `!COMMAND` in the prompt asks permission,
// runs the command, shows its output, and the model (a local Chat Completions server in the user's config,
// every request captured) reads it with the next prompt; Ctrl+G opens the prompt in $EDITOR (a script that
// rewrites the file, run through the terminal) and takes the edited text back; tui.keys rebinds it.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary } from "../helpers/binary.ts";
import { startProviderFake, type ProviderFake } from "../fakes/provider-fake.ts";
import { scriptedProject, send, Terminals } from "./tui-harness.ts";

const terminals = new Terminals();
let fake: ProviderFake | undefined;

beforeAll(() => ensureBinary(), 180_000);
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});
afterAll(() => terminals.closeAll(), 60_000);

/** A project whose model is the capturing fake; `tui` is added to the user's config. */
function project(tui = "") {
  fake = startProviderFake("b_chat_completions", [1, 2, 3].map((n) => ({ kind: "turn" as const, turn: { text: `answer number ${n}` } })));
  const p = scriptedProject("responses: []\n", {
    globalConfig: `providers:\n  local: { kind: { type: custom_b_compatible }, url: "${fake.base}" }\nmodels:\n  m: { provider: local, class: full, context_window: 32000 }\ndefaults: { full: m, mini: m }\n${tui}`,
  });
  // The "editor": appends a line to the file it is given, as a person would.
  const editor = join(p.root, "..", "fake-editor.sh");
  writeFileSync(editor, '#!/bin/sh\nprintf "%s\\nwritten in the editor\\n" "$(cat "$1")" > "$1"\n');
  chmodSync(editor, 0o755);
  p.env.EDITOR = editor;
  delete p.env.VISUAL;
  return p;
}

function lastUserText(f: ProviderFake): string {
  expect(f.violations).toEqual([]);
  const user = (f.requests.at(-1)!.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === "user").at(-1)!;
  return typeof user.content === "string" ? user.content : (user.content as { text?: string }[]).map((p) => p.text ?? "").join("\n");
}

describe("!command and keys (compiled binary, real terminal)", () => {
  test("!COMMAND asks, runs, shows the output, and the model reads it with the next prompt", async () => {
    const p = project();
    const t = terminals.start(p, ["new"]);
    await t.waitFor((s) => /ready\s/.test(s.screen()), "the view");
    terminals.sessionOf(t, p);
    await send(t, "!printf 'SHELL-%s' said");
    await t.waitFor("Allow shell printf", "the permission dialog");
    t.write("1");
    await t.waitFor("SHELL-said", "the command's output");
    await t.waitFor("the model sees this with your next prompt", "the note");
    expect(fake!.requests).toHaveLength(0);
    await send(t, "what did it print?");
    await t.waitFor("answer number 1", "the answer");
    const text = lastUserText(fake!);
    expect(text).toContain("The user ran this shell command: printf 'SHELL-%s' said\nOutput:\nSHELL-said");
    expect(text).toContain("what did it print?");
  }, 90_000);

  test("Ctrl+G edits the prompt in $EDITOR; tui.keys moves it to another key", async () => {
    const p = project("tui:\n  keys:\n    external_editor: ctrl+t\n");
    const t = terminals.start(p, ["new"]);
    await t.waitFor((s) => /ready\s/.test(s.screen()), "the view");
    terminals.sessionOf(t, p);
    t.write("draft text");
    await t.waitFor("› draft text", "the draft");
    // Ctrl+G is not bound any more: nothing happens (the key after it shows it was read).
    t.write("\x07");
    t.write("!");
    await t.waitFor("› draft text!", "the key after Ctrl+G");
    t.write("\x14");
    await t.waitFor("written in the editor", "the edited prompt");
    expect(t.screen()).toContain("› draft text!");
    t.write("\r");
    await t.waitFor("answer number 1", "the answer");
    expect(lastUserText(fake!)).toBe("draft text!\nwritten in the editor");
  }, 90_000);

  test("Ctrl+G by default; a bad tui.keys entry is named and the default kept", async () => {
    const p = project("tui:\n  keys:\n    details: ctrl+c\n");
    const t = terminals.start(p, ["new"]);
    await t.waitFor((s) => /ready\s/.test(s.screen()), "the view");
    terminals.sessionOf(t, p);
    expect(t.text()).toContain("tui.keys.details: 'ctrl+c' is not a key the view can rebind");
    t.write("hello");
    await t.waitFor("› hello", "the draft");
    t.write("\x07");
    await t.waitFor("written in the editor", "the edited prompt");
  }, 90_000);
});
