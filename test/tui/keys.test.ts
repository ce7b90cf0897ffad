// tui.keys (issue 37 item 5): the config accepts and rejects bindings naming the field, the key map
// rebinds and reports clashes, Ctrl+G's editor round trip through a real `sh` and a script editor, and the
// clipboard reader (a strict stand-in for xclip that answers only the exact PNG request).
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configEnv, problemLines } from "../helpers/config-env.ts";
import { clipboardImage, clipboardReaders } from "../../tui/keys/clipboard-image.ts";
import { editInEditor } from "../../tui/keys/external-editor.ts";
import { DEFAULT_KEYS, keyHelp, matches, resolveKeys } from "../../tui/keys/keymap.ts";

const key = (over: Partial<{ ctrl: boolean; meta: boolean; shift: boolean; return: boolean; escape: boolean; home: boolean; end: boolean }> = {}) => ({ ctrl: false, meta: false, shift: false, return: false, escape: false, ...over });

function script(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), "agent-keys-"));
  const path = join(dir, "tool");
  writeFileSync(path, `#!/bin/sh\n${text}`);
  chmodSync(path, 0o755);
  return path;
}

describe("tui.keys in the config", () => {
  test("valid bindings load; a malformed key or an unknown action is an error naming the field", () => {
    const ok = configEnv();
    ok.globalFile("tui:\n  keys:\n    external_editor: ctrl+t\n    newline: [alt+enter, ctrl+j]\n");
    const loaded = ok.load();
    expect(problemLines(loaded, "error")).toEqual([]);
    expect(loaded.config.tui?.keys?.external_editor).toBe("ctrl+t");
    const bad = configEnv();
    bad.globalFile("tui:\n  keys:\n    external_editor: ctrl+shift+x\n    launch_rockets: ctrl+r\n");
    const lines = problemLines(bad.load(), "error").join("\n");
    expect(lines).toContain("tui.keys.external_editor");
    expect(lines).toContain("launch_rockets");
  });
});

describe("key map", () => {
  test("defaults: Ctrl+G edits, Ctrl+V pastes an image, Esc interrupts", () => {
    expect(matches(DEFAULT_KEYS, "external_editor", "g", key({ ctrl: true }))).toBe(true);
    expect(matches(DEFAULT_KEYS, "paste_image", "v", key({ ctrl: true }))).toBe(true);
    expect(matches(DEFAULT_KEYS, "interrupt", "", key({ escape: true }))).toBe(true);
    expect(matches(DEFAULT_KEYS, "newline", "", key({ return: true }))).toBe(false);
    expect(matches(DEFAULT_KEYS, "newline", "", key({ return: true, meta: true }))).toBe(true);
  });

  test("a rebinding replaces the default; a key taken from another action's default moves; clashes and fixed keys are named", () => {
    const { keys, problems } = resolveKeys({ external_editor: "ctrl+o", interrupt: ["ctrl+x"] });
    expect(problems).toEqual([]);
    expect(matches(keys, "external_editor", "o", key({ ctrl: true }))).toBe(true);
    expect(matches(keys, "external_editor", "g", key({ ctrl: true }))).toBe(false);
    // Ctrl+O was details' default: details gave it up.
    expect(matches(keys, "details", "o", key({ ctrl: true }))).toBe(false);
    expect(matches(keys, "interrupt", "", key({ escape: true }))).toBe(false);
    expect(keyHelp(keys)).toContain("Ctrl+X: interrupt the running turn");

    const clash = resolveKeys({ details: "ctrl+y", external_editor: "ctrl+y" });
    expect(clash.problems).toEqual(["tui.keys: Ctrl+Y is bound to both details and external_editor; details keeps it"]);
    const fixed = resolveKeys({ detach: "ctrl+c", nope: "ctrl+b" });
    expect(fixed.problems[0]).toContain("tui.keys.detach: 'ctrl+c' is not a key the view can rebind");
    expect(fixed.problems[1]).toContain("tui.keys.nope is not an action");
    expect(matches(fixed.keys, "detach", "d", key({ ctrl: true }))).toBe(true);
    const unbound = resolveKeys({ paste_image: [] });
    expect(unbound.problems).toEqual([]);
    expect(matches(unbound.keys, "paste_image", "v", key({ ctrl: true }))).toBe(false);
  });
});

describe("the external editor (Ctrl+G)", () => {
  test("the prompt goes to $EDITOR in a private file and comes back edited; raw mode is off meanwhile", () => {
    const seen = join(mkdtempSync(join(tmpdir(), "agent-keys-")), "seen");
    const editor = script(`stat -c %a "$1" > ${seen}; cat "$1" >> ${seen}; printf 'edited: %s\\n' "$(cat "$1")" > "$1"\n`);
    const modes: boolean[] = [];
    const input = { isTTY: true, isRaw: true, setRawMode: (m: boolean) => modes.push(m) };
    expect(editInEditor("fix the bug", { EDITOR: editor, PATH: process.env.PATH }, input)).toEqual({ text: "edited: fix the bug" });
    expect(readFileSync(seen, "utf8")).toBe("600\nfix the bug");
    expect(modes).toEqual([false, true]);
  });

  test("$VISUAL wins; an editor that fails leaves the prompt unchanged and says so", () => {
    const visual = script('printf visual > "$1"\n');
    expect(editInEditor("x", { VISUAL: visual, EDITOR: "false", PATH: process.env.PATH })).toEqual({ text: "visual" });
    const failing = editInEditor("x", { EDITOR: script("exit 3\n"), PATH: process.env.PATH });
    expect("error" in failing && failing.error).toContain("exited with 3; the prompt is unchanged");
  });
});

describe("the clipboard image (Ctrl+V)", () => {
  const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(16, 1)]);

  test("X11: xclip's PNG becomes an attachment; Wayland is tried first when present", () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-clip-"));
    const png = join(dir, "c.png");
    writeFileSync(png, PNG);
    // Strict: only the exact request for the clipboard's PNG is answered.
    writeFileSync(join(dir, "xclip"), `#!/bin/sh\n[ "$*" = "-selection clipboard -t image/png -o" ] || { echo "bad args: $*" >&2; exit 2; }\ncat ${png}\n`);
    chmodSync(join(dir, "xclip"), 0o755);
    const env = { PATH: `${dir}:/usr/bin:/bin`, DISPLAY: ":0" };
    expect(clipboardReaders("linux", env)).toEqual([["xclip", "-selection", "clipboard", "-t", "image/png", "-o"]]);
    const got = clipboardImage("linux", env);
    expect(got).toEqual({ name: "clipboard image", bytes: PNG.length, image: { media_type: "image/png", data_base64: PNG.toString("base64") } });
  });

  test("text on the clipboard, or no reader at all, is said, with /image PATH as the way out", () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-clip-"));
    writeFileSync(join(dir, "xclip"), "#!/bin/sh\nprintf 'just text'\n");
    chmodSync(join(dir, "xclip"), 0o755);
    const text = clipboardImage("linux", { PATH: dir, DISPLAY: ":0" });
    expect("error" in text && text.error).toContain("the clipboard is not a PNG, JPEG, GIF or WebP image");
    const none = clipboardImage("linux", { PATH: "/nonexistent" });
    expect("error" in none && none.error).toContain("use /image PATH");
  });
});
