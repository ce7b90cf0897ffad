// Issue 37 items 3 and 5 in a real terminal (compiled binary): `!COMMAND` in the prompt asks permission,
// runs the command, shows its output, and the model (a local Chat Completions server in the user's config,
// every request captured) reads it with the next prompt; Ctrl+G opens the prompt in $EDITOR (a script that
// rewrites the file, run through the terminal) and takes the edited text back; tui.keys rebinds it.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
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

/** A project whose model (it sees images) is the capturing fake; `tui` is added to the user's config. */
function project(tui = "") {
  fake = startProviderFake("b_chat_completions", [1, 2, 3].map((n) => ({ kind: "turn" as const, turn: { text: `answer number ${n}` } })));
  const p = scriptedProject("responses: []\n", {
    globalConfig: `providers:\n  local: { kind: { type: custom_b_compatible }, url: "${fake.base}" }\nmodels:\n  m: { provider: local, class: full, context_window: 32000, supports_vision: true }\ndefaults: { full: m, mini: m }\n${tui}`,
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

  test("the / menu lists custom commands with their descriptions and runs one; Ctrl+V attaches the clipboard's image", async () => {
    const p = project();
    const add = (path: string, text: string) => (mkdirSync(dirname(path), { recursive: true }), writeFileSync(path, text));
    add(join(p.configDir, "commands", "frontend", "button.md"), "---\ndescription: Make a button\n---\nMake a button labelled $1.\n");
    add(join(p.root, ".agent", "commands", "review.md"), "---\ndescription: Review a pull request\n---\nReview #$1.\n");
    // A strict stand-in for xclip: it answers only the request for the clipboard's PNG.
    const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(2048, 7)]);
    const bin = join(p.root, "..", "bin");
    add(join(bin, "clip.png"), "");
    writeFileSync(join(bin, "clip.png"), PNG);
    add(join(bin, "xclip"), `#!/bin/sh\n[ "$*" = "-selection clipboard -t image/png -o" ] || exit 2\ncat ${join(bin, "clip.png")}\n`);
    chmodSync(join(bin, "xclip"), 0o755);
    p.env.PATH = `${bin}:${p.env.PATH}`;
    p.env.DISPLAY = ":0";
    const t = terminals.start(p, ["new"]);
    await t.waitFor((s) => /ready\s/.test(s.screen()), "the view");
    terminals.sessionOf(t, p);
    t.write("/frontend:");
    await t.waitFor((s) => /\/frontend:button\s+Make a button \(user command\)/.test(s.screen()), "the custom command in the menu");
    t.write("\x15");
    await t.waitFor((s) => !s.screen().includes("(user command)"), "the menu to close");
    t.write("/rev");
    await t.waitFor((s) => /\/review\s+Review a pull request \(project command\)/.test(s.screen()), "the project command in the menu");
    t.write("\x15");
    await t.waitFor((s) => !s.screen().includes("(project command)"), "the menu to close");
    await send(t, "/frontend:button Save");
    await t.waitFor("answer number 1", "the command's answer");
    expect(lastUserText(fake!)).toBe("Make a button labelled Save.");

    t.write("\x16");
    await t.waitFor("⎘ image clipboard image (2 KB)", "the attached clipboard image");
    await send(t, "what is in it?");
    await t.waitFor("answer number 2", "the answer");
    const content = (fake!.requests.at(-1)!.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === "user").at(-1)!.content;
    expect(JSON.stringify(content)).toContain(`data:image/png;base64,${PNG.toString("base64")}`);
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
