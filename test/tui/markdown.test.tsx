// The markdown renderer as a person sees it: markers gone, structure kept, half-streamed text sane;
// and the tool view's diffs and truncation hints.
import { describe, expect, test } from "bun:test";
import { render } from "ink-testing-library";
import { Markdown, parseInline, parseMarkdown } from "../../tui/markdown.tsx";
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
