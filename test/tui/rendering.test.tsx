// Issue 27 item 4, on the screen a person reads (ink-testing-library): progress notes as progress, a
// context meter that counts what the context holds, retries never above their maximum and with their
// delay, wrapped lines without a leading space, /help summaries in one column at every width.
import { describe, expect, test } from "bun:test";
import { Box } from "ink";
import { render } from "ink-testing-library";
import type { ReactNode } from "react";
import type { EngineEvent } from "../../src/agent/events.ts";
import { BlockView } from "../../tui/components/block-view.tsx";
import { contextMeter } from "../../tui/components/status-line.tsx";
import { helpTable } from "../../tui/slash.ts";
import type { Block } from "../../tui/view-state.ts";
import { ViewStore } from "../../tui/view-store.ts";
import { editToolFor } from "../../src/tools/edit.ts";
import { call, makeContext, makeProject } from "../tools/helpers.ts";
import { recordSequence, testSnapshot } from "./sync-fixtures.ts";

/** What a block draws in a terminal `width` columns wide, as plain text. */
export function drawn(node: ReactNode, width = 100): string {
  const ui = render(<Box width={width} flexDirection="column">{node}</Box>);
  const frame = (ui.lastFrame() ?? "").replace(/\x1b\[[\d;:]*m/g, "");
  ui.unmount();
  return frame;
}

const zero = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 };

function turn(n: number, prompt: string, reply: string, usage = zero, stop: "end_turn" | "interrupted" = "end_turn"): EngineEvent[] {
  const t = `trn_${n}`;
  const m = `msg_a${n}`;
  return [
    { type: "turn_started", turn_id: t, model: "m1", facet: "execute" },
    { type: "user_message", turn_id: t, message: { id: `msg_u${n}`, role: "user", origin: "prompt", content: [{ type: "text", text: prompt }], created_at: 1 } },
    { type: "assistant_message_started", turn_id: t, message_id: m, model: "m1", created_at: 2 },
    { type: "part_started", message_id: m, part_id: `prt_${n}`, kind: "text" },
    { type: "part_completed", message_id: m, part: { id: `prt_${n}`, type: "text", text: reply } },
    { type: "assistant_message_completed", message_id: m, usage, stop_reason: stop === "interrupted" ? "end_turn" : stop },
    { type: "turn_completed", turn_id: t, stop_reason: stop, usage },
  ] as EngineEvent[];
}

describe("rendering (issue 27 item 4)", () => {
  test("a progress_update call reads as a progress note, not as a tool with raw JSON", () => {
    const block: Block = {
      kind: "tool",
      id: "prt_p",
      callId: "c1",
      name: "progress_update",
      argsText: '{"text":"Looking at the project"}',
      args: { text: "Looking at the project" },
      running: false,
      result: { call_id: "c1", name: "progress_update", status: "completed", output: "Shown to the user." },
      durationMs: 3,
      done: true,
    };
    const out = drawn(<BlockView block={block} details={false} />);
    expect(out).toContain("◦ Looking at the project");
    expect(out).not.toContain("{");
    expect(out).not.toContain("Shown to the user");
    // While its arguments stream, the part that arrived.
    const streaming = drawn(<BlockView block={{ ...block, args: null, result: null, done: false, argsText: '{"text":"Reading the dif' }} details={false} />);
    expect(streaming).toContain("◦ Reading the dif");
  });

  test("the context meter: a provider reporting no usage (the demo) and an interrupted answer still count what the context holds", () => {
    const seq = recordSequence();
    const store = new ViewStore();
    store.onSnapshot(testSnapshot(0), false);
    expect(contextMeter(store.contextTokens(), 128_000)).toBe("context —");
    store.onRecords(seq.records(turn(1, "hello", "x".repeat(4000))));
    const demo = store.contextTokens()!;
    expect(demo).toBeGreaterThan(1000);
    expect(contextMeter(demo, 128_000)).toBe("context 1.0k/128k (<1%)");
    expect(contextMeter(40, 128_000)).toBe("context 40/128k (<1%)");
    // A real report (input counts cache reads already: they are not added twice), then an interrupted
    // answer with no usage: the report plus an estimate of what came after it.
    const reported = { ...zero, input_tokens: 20_000, cache_read_tokens: 15_000, output_tokens: 500 };
    store.onRecords(seq.records(turn(2, "next", "ok", reported)));
    expect(store.contextTokens()).toBe(20_500);
    store.onRecords(seq.records(turn(3, "more", "y".repeat(2000), zero, "interrupted")));
    expect(store.contextTokens()!).toBeGreaterThan(20_500 + 400);
    expect(contextMeter(store.contextTokens(), 200_000)).toMatch(/^context 21k\/200k \(11%\)$/);
  });

  test("a retry says which retry of how many and how long it waits, never above the maximum", () => {
    const block = (attempt: number): Block => ({ kind: "retry", id: `r${attempt}`, attempt, max: 3, delayMs: 4000, reason: "overloaded", done: true });
    expect(drawn(<BlockView block={block(2)} details={false} />)).toContain("↻ retry 1/3 in 4.0 s: overloaded");
    expect(drawn(<BlockView block={block(4)} details={false} />)).toContain("↻ retry 3/3 in 4.0 s: overloaded");
  });

  test("wrapped lines start with a word, not with the space they were broken at", () => {
    const text = "This is the offline demo of agent: these answers are scripted, no model is involved. Let me show you how a tool call looks.";
    for (const width of [30, 41, 57, 80]) {
      const answer = drawn(<BlockView block={{ kind: "text", id: "t", text, done: true }} details={false} />, width);
      const notice = drawn(<BlockView block={{ kind: "notice", id: "n", level: "info", message: text, done: true }} details={false} />, width);
      const prompt = drawn(<BlockView block={{ kind: "user", id: "u", text, done: true }} details={false} />, width);
      // The answer's rows start at the left edge; a prompt's and a notice's under their text, after the mark.
      for (const [out, indent] of [[answer, 0], [notice, 2], [prompt, 2]] as const) {
        const lines = out.split("\n").filter((l) => l.trim());
        expect(lines.length).toBeGreaterThan(1);
        for (const l of lines.slice(1)) expect(l.length - l.trimStart().length).toBe(indent);
        // No row is wider than the terminal (a terminal would wrap it again, mid-word).
        for (const l of lines) expect(l.length).toBeLessThanOrEqual(width);
      }
    }
  });

  test("/help: every summary, wrapped or not, stays in its column at every width", () => {
    const table = helpTable(
      [
        { name: "compact", usage: "/compact [instructions for the summary]", summary: "Summarize the conversation so far to free context; recent messages are kept word for word" },
        { name: "clear", usage: "/clear", summary: "Start a fresh context: the model no longer sees the conversation so far (it stays on screen)" },
      ],
      null,
    );
    for (const width of [50, 72, 100]) {
      const out = drawn(<BlockView block={{ kind: "command", id: "c", input: "/help", message: "", failed: false, help: table, done: true }} details={false} />, width);
      const lines = out.split("\n");
      const column = lines.find((l) => l.startsWith("  /exit"))!.indexOf("Detach");
      const from = lines.findIndex((l) => l.startsWith("  /help"));
      const to = lines.findIndex((l) => l.startsWith("Keys:"));
      for (const l of lines.slice(from, to)) {
        if (!l.trim() || l.startsWith("  /")) {
          if (l.startsWith("  /") && l.length > column && l[column - 1] === " " && l.slice(2).split(/\s{2,}/).length > 1) expect(l[column]).not.toBe(" ");
          continue;
        }
        // A continuation row (or a long usage's summary row) starts exactly at the column.
        expect(l.length - l.trimStart().length).toBe(column);
      }
    }
  });
});

describe("notices caused by a command (issue 27 item 4)", () => {
  test("/mcp disable: the notice it causes prints once, after the command's own output", async () => {
    const { App } = await import("../../tui/app.tsx");
    const seq = recordSequence();
    const store = new ViewStore();
    store.onSnapshot(testSnapshot(0), false);
    const actions = {
      commands: async () => ({ commands: [] }),
      sessionCommand: async (name: string, args: string[]) => {
        // The daemon publishes the server's change (a notice for the person, a notification for the
        // model) before it answers the command.
        store.onRecords(
          seq.records([
            { type: "notice", level: "info", message: "tool server everything: disabled" },
            { type: "notification", notification: { id: "ntf_1", source: "mcp:everything", text: "Tool server everything is now disabled; its tools are unavailable.", created_at: 1 } },
          ]),
        );
        await Bun.sleep(100);
        return { message: `everything: ${args[0] === "disable" ? "disabled" : name} [stdio]` };
      },
    };
    const ui = render(<App store={store} actions={actions as never} onExit={() => {}} />);
    // The last frame holds everything printed so far (ink-testing-library draws the static part in each).
    const frames = () => (ui.lastFrame() ?? "").replace(/\x1b\[[\d;:]*m/g, "");
    ui.stdin.write("/mcp disable everything");
    await Bun.sleep(50);
    ui.stdin.write("\r");
    const deadline = Date.now() + 5000;
    while (!frames().includes("everything: disabled [stdio]") && Date.now() < deadline) await Bun.sleep(10);
    await Bun.sleep(150);
    const out = frames();
    ui.unmount();
    expect(out.split("tool server everything: disabled").length - 1).toBe(1);
    expect(out).not.toContain("mcp:everything");
    expect(out.indexOf("› /mcp disable everything")).toBeLessThan(out.indexOf("tool server everything: disabled"));
    expect(out.indexOf("everything: disabled [stdio]")).toBeLessThan(out.indexOf("tool server everything: disabled"));
  });
});

describe("code, tables and diffs (issue 27 item 4)", () => {
  test("a code block is highlighted once the grammars have loaded (lazily), in the theme's colors", async () => {
    const chalk = (await import("chalk")).default;
    const level = chalk.level;
    chalk.level = 3;
    try {
      const { loadHighlighter, highlight } = await import("../../tui/highlight.ts");
      const { Markdown } = await import("../../tui/markdown.tsx");
      const text = "Here:\n\n```ts\nconst answer: number = 42; // the answer\n```";
      await loadHighlighter();
      expect(highlight("const x = 1;", "ts")!.flat().find((t) => t.text === "const")?.kind).toBe("keyword");
      expect(highlight("x", "no-such-language")).toBeNull();
      const ui = render(<Markdown text={text} />);
      await Bun.sleep(20);
      const line = (ui.lastFrame() ?? "").split("\n").find((l) => l.replace(/\x1b\[[\d;:]*m/g, "").includes("answer:"))!;
      ui.unmount();
      // The keyword, the number and the comment each in their own color.
      const colors = new Set([...line.matchAll(/\x1b\[(3\d|9\d|38;[\d;]+)m/g)].map((m) => m[1]));
      expect(colors.size).toBeGreaterThanOrEqual(3);
      expect(line.replace(/\x1b\[[\d;:]*m/g, "")).toContain("const answer: number = 42; // the answer");
    } finally {
      chalk.level = level;
    }
  });

  test("a table is drawn with borders and aligned columns; too wide, as 'header: value' rows", async () => {
    const { Markdown } = await import("../../tui/markdown.tsx");
    const text = "| Tool | Calls | Notes |\n|:-----|------:|:-----:|\n| `glob` | 3 | **fast** |\n| shell | 12 | ok |";
    const out = drawn(<Markdown text={text} />);
    expect(out.split("\n")).toEqual([
      "┌───────┬───────┬───────┐",
      "│ Tool  │ Calls │ Notes │",
      "├───────┼───────┼───────┤",
      "│ glob  │     3 │ fast  │",
      "│ shell │    12 │  ok   │",
      "└───────┴───────┴───────┘",
    ]);
    const wide = `| a | b |\n|---|---|\n| ${"x".repeat(70)} | ${"y".repeat(50)} |`;
    const narrow = drawn(<Markdown text={wide} />);
    expect(narrow).toContain(`a: ${"x".repeat(70)}`);
    expect(narrow).not.toContain("┌");
  });

  test("a completed edit shows its diff with line numbers and context; before it completes, the change from its arguments", () => {
    const result = {
      call_id: "c1",
      name: "edit",
      status: "completed" as const,
      output: "Edited `a.ts`: 1 replacement at line 10.",
      metadata: { path: "/p/a.ts", diff: { hunks: [{ old_start: 8, new_start: 8, lines: [" line 8", " line 9", "-let x = 1;", "+let x = 2;", " line 11"] }] } },
    };
    const block: Block = { kind: "tool", id: "prt_e", callId: "c1", name: "edit", argsText: "", args: { path: "a.ts", old_string: "let x = 1;", new_string: "let x = 2;" }, running: false, result, durationMs: 3, done: true };
    const out = drawn(<BlockView block={block} details={false} />);
    expect(out).toContain("   8   line 8");
    expect(out).toContain("  10 - let x = 1;");
    expect(out).toContain("  10 + let x = 2;");
    expect(out).toContain("  11   line 11");
    const asking = drawn(<BlockView block={{ ...block, result: null, running: true, done: false }} details={false} />);
    expect(asking).toContain("- let x = 1;");
    expect(asking).not.toContain("10 -");
  });

  test("the patch form of edit shows its diff with line numbers too, each file under its name", async () => {
    const root = makeProject({ "a.ts": Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n") + "\n", "b.ts": "x\n" });
    const patch = "*** Begin Patch\n*** Update File: a.ts\n@@\n line 9\n-line 10\n+let x = 2;\n line 11\n*** Update File: b.ts\n@@\n-x\n+y\n*** End Patch";
    const r = await call(editToolFor("patch"), { patch }, makeContext(root));
    const result = { call_id: "c1", name: "edit", status: "completed" as const, output: r.output, metadata: r.metadata };
    const block: Block = { kind: "tool", id: "prt_p", callId: "c1", name: "edit", argsText: "", args: { patch }, running: false, result, durationMs: 3, done: true };
    const out = drawn(<BlockView block={block} details={false} />).split("\n");
    expect(out).toContain("  a.ts");
    expect(out).toContain("   7   line 7");
    expect(out).toContain("  10 - line 10");
    expect(out).toContain("  10 + let x = 2;");
    expect(out).toContain("  12   line 12");
    expect(out).toContain("  b.ts");
    expect(out).toContain("   1 - x");
    expect(out).toContain("   1 + y");
  });
});

