// The markdown renderer as a person sees it: markers gone, structure kept, half-streamed text sane;
// and the tool view's diffs and truncation hints.
import { describe, expect, test } from "bun:test";
import chalk from "chalk";
import { Box } from "ink";
import { render } from "ink-testing-library";
import { Markdown, PrintedMarkdown, parseInline, parseMarkdown } from "../../tui/markdown.tsx";
import { ToolView, diffOf } from "../../tui/components/tool-view.tsx";

describe("markdown", () => {
  test("code blocks, lists, headings, quotes and inline styles render without their markers", () => {
    const text = "# Title\n\nSome **bold**, *italic* and `code` with a [link](https://x.dev).\n\n- one\n  - nested\n1. first\n> quoted\n\n```ts\nconst a = 1;\n```";
    const { lastFrame } = render(<Markdown text={text} />);
    const out = lastFrame()!;
    expect(out).toContain("Title");
    expect(out).not.toContain("# Title");
    expect(out).toContain("Some bold, italic and code with a link (https://x.dev).");
    expect(out).toContain("• one");
    expect(out).toContain("  • nested");
    expect(out).toContain("1. first");
    expect(out).toContain("│ quoted");
    expect(out).toContain("const a = 1;");
    expect(out).not.toContain("```");
  });

  test("half-streamed text: an unclosed fence is code, a lone ** stays literal", () => {
    expect(parseMarkdown("intro\n```py\nprint(1)")).toEqual([
      { type: "para", text: "intro" },
      { type: "code", lang: "py", lines: ["print(1)"] },
    ]);
    expect(parseInline("a **b")).toEqual([{ text: "a **b" }]);
    expect(parseInline("snake_case_name stays")).toEqual([{ text: "snake_case_name stays" }]);
  });
});

describe("tool view", () => {
  const base = { kind: "tool" as const, id: "c1", callId: "c1", argsText: "", running: false, durationMs: 5, done: true };

  test("an edit shows its diff; long output is cut with a hint, shown in full with details", () => {
    const block = { ...base, name: "edit", args: { path: "a.ts", old_string: "let x = 1;", new_string: "let x = 2;" }, result: { call_id: "c1", name: "edit", status: "completed" as const, output: "Edited a.ts" } };
    expect(diffOf("edit", block.args)).toEqual([{ sign: "-", text: "let x = 1;" }, { sign: "+", text: "let x = 2;" }]);
    const edit = render(<ToolView block={block} details={false} />).lastFrame()!;
    expect(edit).toContain("edit a.ts");
    expect(edit).toContain("- let x = 1;");
    expect(edit).toContain("+ let x = 2;");

    const output = Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n");
    const shell = { ...base, name: "shell", args: { command: "seq 30" }, result: { call_id: "c1", name: "shell", status: "completed" as const, output } };
    const collapsed = render(<ToolView block={shell} details={false} />).lastFrame()!;
    expect(collapsed).toContain("line 3");
    expect(collapsed).not.toContain("line 4\n");
    expect(collapsed).toContain("… 26 more lines (Ctrl+O: details)");
    const expanded = render(<ToolView block={shell} details />).lastFrame()!;
    expect(expanded).toContain("line 29");
    expect(expanded).not.toContain("more lines");
  });

  test("a patch is coloured by line; a write shows its content as added lines", () => {
    expect(diffOf("edit", { patch: "@@ -1 +1 @@\n-a\n+b\n c" })).toEqual([
      { sign: "@", text: "@@ -1 +1 @@" },
      { sign: "-", text: "a" },
      { sign: "+", text: "b" },
      { sign: " ", text: "c" },
    ]);
    expect(diffOf("write", { path: "f", content: "x\ny\n" })).toEqual([{ sign: "+", text: "x" }, { sign: "+", text: "y" }]);
    expect(diffOf("shell", { command: "ls" })).toBeNull();
  });
});

describe("printed answers (issue 27 item 6)", () => {
  const frame = (node: React.ReactNode, width: number) => {
    const ui = render(<Box width={width} flexDirection="column">{node}</Box>);
    const out = ui.lastFrame() ?? "";
    ui.unmount();
    return out;
  };
  const samples = [
    "# A title long enough to wrap at narrow widths, and then some more words\n\nA paragraph with **bold**, *italic*, `code` and a [link](https://example.com/some/long/path) that runs past the edge.",
    "- item **1.2** with `code` and *emphasis*\n- an item long enough to wrap under itself, not under its bullet, at every width tried here\n  - a nested item that is also long enough to wrap at the edge of a narrow terminal\n1. a numbered item whose text wraps around the right edge at some point\n10) other",
    "> a quote long enough to wrap at the edge, with `code` and **bold** inside it\n\n---\n\ntext\n\n\n  an indented paragraph   with gaps that wraps around around around around around",
    "## Part 3\n\n```ts\nconst a = 1;\n```\n- item\n| a | b |\n|---|--:|\n| 1 | 2 |\nafter the table",
    "averyveryveryveryveryveryveryveryveryverylongwordwithoutanyspacethatishardwrapped and more",
  ];
  test("pre-wrapped into one Text per run of lines, an answer draws the same screen as one element per line, styles included", () => {
    const level = chalk.level;
    chalk.level = 3;
    try {
      for (const width of [10, 23, 40, 61, 100]) for (const text of samples) expect(frame(<PrintedMarkdown text={text} width={width} />, width)).toBe(frame(<Markdown text={text} />, width));
      expect(frame(<PrintedMarkdown text={samples[0]!} width={100} />, 100)).toContain("\x1b[1mbold");
    } finally {
      chalk.level = level;
    }
  });
  test("a wrapped list item or quote continues under its text, not under its mark", () => {
    const out = frame(<Markdown text={"- one two three four five six\n> seven eight nine ten eleven"} />, 16).split("\n");
    expect(out).toEqual(["• one two three", "  four five six", "│ seven eight", "  nine ten", "  eleven"]);
  });
});

