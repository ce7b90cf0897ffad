// Attaching to a session draws its history as it was drawn live (issue 27 item 6): the compiled binary
// on a PTY feeding @xterm/headless. The live view prints each finished block through Ink's <Static>; on
// attach the history is written in one piece (tui/print-blocks.tsx). Both screens are compared cell by
// cell, styles included: answers with headings, lists, quotes, code and a table, tool calls, a long answer.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ensureBinary } from "../helpers/binary.ts";
import type { TermSession } from "../tui/terminal.ts";
import { scriptedProject, send, Terminals } from "./tui-harness.ts";

const terminals = new Terminals();
beforeAll(() => ensureBinary(), 180_000);
afterAll(() => terminals.closeAll(), 30_000);

const long = Array.from({ length: 120 }, (_, i) => (i % 30 === 0 ? `## Part ${i / 30}` : `- item **${i}** with \`code\`, *emphasis* and enough words to wrap at the edge of an eighty column terminal`)).join("\\n");
const script = `responses:
  - text: "# Steps\\n\\nHello **there**, a [link](https://example.com/a/long/path) and \`code\`.\\n\\n- first item\\n  - nested item\\n1. numbered\\n\\n> a quote that is long enough to wrap at the edge of the terminal, with **bold** inside it\\n\\n\`\`\`ts\\nconst answer: number = 42; // the answer\\n\`\`\`\\n\\n| name | value |\\n|---|--:|\\n| alpha | 1 |\\n| beta | 22 |"
  - text: "Running it."
    tool_calls:
      - { name: shell, arguments: { command: "seq 1 12" } }
  - text: "${long}"
`;

/** The conversation's rows from the first prompt to the editor, each cell with its styles. */
function conversation(t: TermSession): string[] {
  const buf = t.xterm.buffer.active;
  const cell = buf.getNullCell();
  const rows: string[] = [];
  for (let y = 0; y < buf.length; y++) {
    const line = buf.getLine(y)!;
    let row = "";
    let style = "";
    for (let x = 0; x < t.xterm.cols; x++) {
      line.getCell(x, cell);
      const s = [cell.getFgColorMode(), cell.getFgColor(), cell.getBgColorMode(), cell.getBgColor(), cell.isBold(), cell.isItalic(), cell.isDim(), cell.isUnderline(), cell.isInverse()].join(",");
      const ch = cell.getChars() || (cell.getWidth() === 0 ? "" : " ");
      if (s !== style && ch.trim()) row += `{${(style = s)}}`;
      row += ch;
    }
    rows.push(row.trimEnd());
  }
  const plain = rows.map((r) => r.replace(/\{[^}]*\}/g, ""));
  const first = plain.findIndex((r) => r.startsWith("› say hello"));
  const editor = plain.findLastIndex((r) => r.startsWith("╭"));
  return rows.slice(first, editor);
}

describe("attaching draws the history as it was drawn live (issue 27 item 6)", () => {
  test("answers, tool calls and a long answer: the same rows and styles after `agent continue`", async () => {
    const p = scriptedProject(script);
    const t = terminals.start(p, ["new"]);
    await t.waitFor("Type a message", "the prompt editor");
    terminals.sessionOf(t, p);
    await send(t, "say hello");
    await t.waitFor("beta", "the first answer");
    await t.waitFor((s) => /ready\s/.test(s.screen()), "the first turn to end");
    await send(t, "run it");
    await t.waitFor("Allow shell seq 1 12?", "the permission dialog");
    t.write("1");
    await t.waitFor((s) => /ready\s/.test(s.screen()) && s.text().includes("item 119"), "the long answer");
    await Bun.sleep(300);
    const live = conversation(t);
    expect(live.length).toBeGreaterThan(150);
    t.write("\x04");
    expect(await t.proc.exited).toBe(0);

    const again = terminals.start(p, ["continue"]);
    await again.waitFor((s) => /ready\s/.test(s.screen()) && s.text().includes("item 119"), "the history after continue");
    await Bun.sleep(300);
    expect(conversation(again)).toEqual(live);
    again.write("\x04");
    await again.proc.exited;
  }, 90_000);
});
