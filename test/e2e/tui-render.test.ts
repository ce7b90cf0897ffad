// Issue 27 item 4 in a real terminal (the compiled binary on a PTY feeding @xterm/headless): the demo's
// progress note reads as progress, the context meter counts the conversation, and a change of width
// reflows the conversation instead of leaving copies of it and of the editor on screen.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary } from "../helpers/binary.ts";
import { scriptedProject, send, Terminals } from "./tui-harness.ts";

const terminals = new Terminals();
beforeAll(() => ensureBinary(), 180_000);
afterAll(() => terminals.closeAll());

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
});
