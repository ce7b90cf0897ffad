// Printed blocks written in one piece (tui/print-blocks.tsx: the history on attach, a reflow's reprint)
// must draw the screen <Static> draws for them: every block kind, at several widths, with details on and
// off, code plain and highlighted, cell by cell with its styles (issue 27 item 6).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Terminal as XTerm } from "@xterm/headless";
import chalk from "chalk";
import { render, Static } from "ink";
import { PassThrough, Writable } from "node:stream";
import { helpTable } from "../../tui/slash.ts";
import { highlighterLoaded, loadHighlighter } from "../../tui/highlight.ts";
import { printBlocks, PrintedBlock } from "../../tui/print-blocks.tsx";
import { DARK_THEME, ThemeProvider, type Theme } from "../../tui/theme/theme.ts";
import { ViewStore } from "../../tui/view-store.ts";
import type { Block } from "../../tui/view-state.ts";

const answer = [
  "# A title long enough to wrap at narrow widths, and then some more words",
  "",
  "A paragraph with **bold**, *italic*, `code` and a [link](https://example.com/some/long/path) that runs past the edge.",
  "- item **1.2** with `code` and *emphasis*",
  "  - a nested item that is also long enough to wrap at the edge of a narrow terminal",
  "> a quote long enough to wrap at the edge, with `code` and **bold** inside it",
  "",
  "```ts",
  "const answer: number = 42; // a comment long enough to wrap at the narrowest width tried here",
  "",
  "function f(x: string) { return `${x}!`; }",
  "```",
  "```",
  "plain fence",
  "```",
  "---",
  "averyveryveryveryveryveryveryveryveryverylongwordwithoutanyspacethatishardwrapped and more",
].join("\n");
const tool = { kind: "tool" as const, callId: "c1", argsText: "", running: false, durationMs: 1200, done: true as const };
const blocks: Block[] = [
  { kind: "notice", id: "n1", level: "info", message: "session ses_x · local daemon pid 1 · /help for commands, Ctrl+D detaches", done: true },
  { kind: "user", id: "u1", text: "a prompt long enough to wrap around the edge of the narrower terminals here\n  with an indented line", done: true },
  { kind: "reasoning", id: "r1", text: "thinking\nabout it\nat length", done: true },
  { kind: "text", id: "t1", text: answer, done: true },
  { ...tool, id: "c1", name: "shell", args: { command: "seq 30" }, result: { call_id: "c1", name: "shell", status: "completed", output: Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n") } },
  { ...tool, id: "c2", name: "edit", args: { path: "a.ts", old_string: "let x = 1;", new_string: "let x = 2;" }, result: { call_id: "c2", name: "edit", status: "completed", output: "Edited a.ts", metadata: { diff: { hunks: [{ old_start: 3, new_start: 3, lines: [" a", "-let x = 1;", "+let x = 2;", " b"] }] } } } },
  { kind: "text", id: "t2", text: "A table:\n\n| name | value |\n|---|--:|\n| alpha | 1 |\n| a much longer name | 22 |\n\nafter it", done: true },
  { kind: "text", id: "t3", text: "tab\tin a line, drawn by the component", done: true },
  { kind: "retry", id: "y1", attempt: 2, max: 3, delayMs: 1500, reason: "429 rate limited", done: true },
  { kind: "notice", id: "n2", level: "warning", message: "a warning long enough to wrap under its own text rather than under the mark", done: true },
  { kind: "turn_end", id: "e1", stopReason: "error", error: "the provider failed", done: true },
  { kind: "subagent", id: "s1", name: "explore", description: "look around", status: "completed", report: "found\nthree\nthings\nand more", activity: null, done: true },
  { kind: "command", id: "m1", input: "/help", message: "", failed: false, help: helpTable([{ name: "compact", usage: "/compact [focus]", summary: "Summarize the conversation so far to free context" }], null, true), done: true },
  { kind: "command", id: "m2", input: "/mcp", message: "no tool servers\n  indented", failed: true, done: true },
  { kind: "text", id: "t4", text: "", done: true },
] as Block[];

/** Cells of what a terminal `columns` wide shows after `bytes`: each row's characters with their styles. */
async function screen(bytes: string, columns: number): Promise<string[]> {
  const xterm = new XTerm({ cols: columns, rows: 10, scrollback: 2000, allowProposedApi: true, convertEol: true });
  await new Promise<void>((resolve) => xterm.write(bytes, resolve));
  const buf = xterm.buffer.active;
  const rows: string[] = [];
  const cell = buf.getNullCell();
  for (let y = 0; y < buf.length; y++) {
    const line = buf.getLine(y)!;
    let row = "";
    let style = "";
    for (let x = 0; x < columns; x++) {
      line.getCell(x, cell);
      const s = [cell.getFgColorMode(), cell.getFgColor(), cell.getBgColorMode(), cell.getBgColor(), cell.isBold(), cell.isItalic(), cell.isDim(), cell.isUnderline(), cell.isInverse(), cell.isStrikethrough()].join(",");
      const ch = cell.getChars() || (cell.getWidth() === 0 ? "" : " ");
      if (s !== style && ch.trim()) row += `{${(style = s)}}`;
      row += ch;
    }
    rows.push(row.trimEnd());
  }
  while (rows.length && rows.at(-1) === "") rows.pop();
  return rows;
}

class Tty extends Writable {
  isTTY = true;
  out = "";
  constructor(readonly columns: number, readonly rows = 40) {
    super();
  }
  override _write(chunk: Buffer | string, _enc: string, done: () => void) {
    this.out += chunk.toString();
    done();
  }
}

/** What the view's <Static> writes for the blocks (the rows above Ink's empty frame). */
async function drawnByStatic(items: Block[], columns: number, theme: Theme, details: boolean): Promise<string> {
  const stdout = new Tty(columns);
  const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin, ref: () => stdin, unref: () => stdin });
  const ink = render(
    <ThemeProvider value={theme}>
      <Static items={items}>{(b) => <PrintedBlock key={b.id} block={b} details={details} columns={columns} />}</Static>
    </ThemeProvider>,
    { stdout: stdout as unknown as NodeJS.WriteStream, stdin: stdin as unknown as NodeJS.ReadStream, exitOnCtrlC: false, patchConsole: false, interactive: true },
  );
  await ink.waitUntilRenderFlush();
  ink.unmount();
  // Only the rows: Ink's cursor and synchronized-output sequences move nothing in a fresh terminal.
  return stdout.out;
}

let level: typeof chalk.level = 0;
beforeAll(() => {
  level = chalk.level;
  chalk.level = 3;
});
afterAll(() => {
  chalk.level = level;
});

describe("printed blocks written in one piece (issue 27 item 6)", () => {
  const check = async (highlighted: boolean) => {
    for (const theme of [DARK_THEME]) {
      for (const columns of [24, 41, 80, 120]) {
        for (const details of [false, true]) {
          // Drawing a code block starts loading the grammars: when they arrive between the two drawings, the
          // pair is drawn again, so both sides always see the same highlighter.
          for (;;) {
            const loaded = highlighterLoaded();
            const expected = await screen(await drawnByStatic(blocks, columns, theme, details), columns);
            const written = await screen(printBlocks(blocks, { columns, theme, details }), columns);
            if (highlighterLoaded() !== loaded) continue;
            if (highlighted) expect(loaded).toBe(true);
            expect({ columns, details, loaded, rows: written }).toEqual({ columns, details, loaded, rows: expected });
            break;
          }
        }
      }
    }
  };

  test("every block kind draws the same screen as <Static>, styles included, whether or not the highlighter has loaded yet", async () => {
    await check(false);
  });

  test("and once it has (code blocks highlighted)", async () => {
    await loadHighlighter();
    await check(true);
    const rows = printBlocks(blocks.slice(3, 4), { columns: 80, theme: DARK_THEME, details: false });
    // The keyword and the number have colors of their own inside the code block's.
    expect(rows).toMatch(/\x1b\[[\d;]*m\s*const/);
  });

  test("the store writes the history of a catch-up and a reflow in one piece, after what <Static> has not drawn yet", () => {
    const store = new ViewStore({ loaded: () => true, whenLoaded: () => {} });
    const written: string[][] = [];
    store.rowsOf = (bs) => {
      // Ink's renderToString flushes React's pending work: the view may commit while rows are built.
      expect(store.takeWrite()).toBeNull();
      written.push(bs.map((b) => b.id));
      return bs.map((b) => b.id).join(",");
    };
    store.print([blocks[0]!], false);
    expect(store.staticItems.map((b) => b.id)).toEqual(["n1"]);
    // <Static> has not drawn n1 yet: it goes first in the write, and <Static> starts over empty.
    const epoch = store.printEpoch;
    store.print([blocks[1]!, blocks[2]!], true);
    expect(store.staticItems).toEqual([]);
    expect(store.printEpoch).toBe(epoch + 1);
    // Printed while the write waits for the view's commit: after it, in the same write.
    store.print([blocks[3]!], false);
    expect(store.takeWrite()).toBe("n1,u1,r1t1");
    expect(store.takeWrite()).toBeNull();
    expect(store.printed.map((b) => b.id)).toEqual(["n1", "u1", "r1", "t1"]);
    // Drawn by <Static> once nothing waits; a reflow writes everything printed again.
    store.print([blocks[4]!], false);
    expect(store.staticItems.map((b) => b.id)).toEqual(["c1"]);
    store.staticDrawn = 1;
    store.reflow();
    expect(store.takeWrite()).toBe("n1,u1,r1,t1,c1");
    expect(store.staticItems).toEqual([]);
    // Without the view's writer (tests' renderers) everything goes through <Static>.
    const plain = new ViewStore({ loaded: () => true, whenLoaded: () => {} });
    plain.print([blocks[0]!], true);
    expect(plain.staticItems.map((b) => b.id)).toEqual(["n1"]);
    expect(plain.takeWrite()).toBeNull();
  });
});
