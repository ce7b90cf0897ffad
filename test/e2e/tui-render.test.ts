// Issue 27 item 4 in a real terminal (the compiled binary on a PTY feeding @xterm/headless): the demo's
// progress note reads as progress, the context meter counts the conversation, and a change of width
// reflows the conversation instead of leaving copies of it and of the editor on screen.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary } from "../helpers/binary.ts";
import { scriptedProject, send, Terminals } from "./tui-harness.ts";

const terminals = new Terminals();
beforeAll(() => ensureBinary(), 180_000);
afterAll(() => terminals.closeAll(), 30_000);

const count = (text: string, part: string) => text.split(part).length - 1;

describe("rendering in a real terminal (issue 27 item 4)", () => {
  test("the demo: progress note, a non-zero context meter, and a clean reflow when the width changes", async () => {
    const p = scriptedProject("responses: [{ text: unused }]\n");
    rmSync(join(p.root, ".agent"), { recursive: true });
    const t = terminals.start(p, ["new", "--demo"]);
    await t.waitFor("Type a message", "the prompt editor");
    terminals.sessionOf(t, p);
    await send(t, "hello");
    await t.waitFor("Above is the result of a real", "the demo's answer");
    await t.waitFor((s) => /ready\s/.test(s.screen()), "the turn to end");
    expect(t.text()).toContain("◦ Looking at the project (offline demo)");
    expect(t.text()).not.toContain('{"text"');
    expect(t.screen()).toMatch(/context \d+\/128k \(<1%\)/);

    t.resize(60);
    await t.waitFor((s) => s.text().includes("╭" + "─".repeat(58) + "╮") && count(s.text(), "Type a message") === 1, "one editor, drawn at the new width", 10_000);
    await Bun.sleep(300);
    const text = t.text();
    // Everything is there once, wrapped at 60 columns, and nothing drawn at the old width is left.
    expect(count(text, "Type a message")).toBe(1);
    expect(count(text, "› hello")).toBe(1);
    expect(count(text, "◦ Looking at the project")).toBe(1);
    expect(text).not.toContain("─".repeat(60));
    for (const line of t.lines()) expect(line.startsWith(" ") && !line.startsWith("  ")).toBe(false);

    t.resize(100);
    await t.waitFor((s) => s.text().includes("╭" + "─".repeat(98) + "╮"), "the editor at the wider width", 10_000);
    await Bun.sleep(300);
    expect(count(t.text(), "Type a message")).toBe(1);
    expect(count(t.text(), "› hello")).toBe(1);
    t.write("\x04");
    expect(await t.proc.exited).toBe(0);
  }, 60_000);

  test("/ opens the command menu with each command's summary; @ picks a project file (issue 27 item 3)", async () => {
    const p = scriptedProject("responses: [{ text: unused }]\n");
    rmSync(join(p.root, ".agent"), { recursive: true });
    const t = terminals.start(p, ["new", "--demo"]);
    await t.waitFor("Type a message", "the prompt editor");
    terminals.sessionOf(t, p);
    await t.waitFor((s) => /ready\s/.test(s.screen()), "the session to be ready");
    t.write("/");
    await t.waitFor((s) => /\/compact \[[^\n]*Summarize the conversation/.test(s.screen()), "the session's commands in the menu");
    expect(t.screen()).toMatch(/❯ \/help\s+List the commands/);
    t.write("cle");
    await t.waitFor((s) => /❯ \/clear/.test(s.screen()), "/clear chosen");
    t.write("\x15");
    await t.waitFor((s) => !s.screen().includes("Tab or Enter picks"), "the menu gone with the text");
    t.write("read @scrip");
    await t.waitFor((s) => /❯ script\.yaml/.test(s.screen()), "the project's file in the menu");
    t.write("\t");
    await t.waitFor((s) => s.screen().includes("› read @script.yaml"), "the file's reference in the prompt");
    t.write("\x15");
    await t.waitFor((s) => s.screen().includes("Type a message"), "the editor empty again");
    t.write("\x04");
    expect(await t.proc.exited).toBe(0);
  }, 60_000);

  test("a config file written while the session runs is pointed out, with the way to load it (issue 27 item 5)", async () => {
    const p = scriptedProject("responses: [{ text: unused }]\n");
    rmSync(join(p.root, ".agent"), { recursive: true });
    const t = terminals.start(p, ["new", "--demo"]);
    await t.waitFor("Type a message", "the prompt editor");
    terminals.sessionOf(t, p);
    await t.waitFor((s) => /ready\s/.test(s.screen()), "the session to be ready");
    writeFileSync(join(p.configDir, "config.yaml"), "tui: { theme: dark }\n");
    // The notice wraps under its mark: read it as one line.
    const joined = () => t.text().replace(/\s*\n\s*/g, " ");
    await t.waitFor(() => joined().includes("config.yaml changed; this session keeps the config it started with"), "the hint", 10_000);
    expect(joined()).toContain("until /reload (which restarts its daemon; the conversation stays)");
    t.write("\x04");
    expect(await t.proc.exited).toBe(0);
  }, 60_000);
});
