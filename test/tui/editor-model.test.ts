// The prompt editor's rules without a terminal: multi-line editing, line moves, and history.
import { describe, expect, test } from "bun:test";
import { backspace, editorOf, EMPTY_EDITOR, insert, killLineBack, moveLine, PromptHistory } from "../../tui/editor-model.ts";
import { helpText, parseSlash, splitArgs, unescapePrompt } from "../../tui/slash.ts";

describe("editor model", () => {
  test("pasted CR/CRLF become line breaks; Up/Down move between lines and fall through to history at the edges", () => {
    let s = insert(EMPTY_EDITOR, "first\r\nsecond\rthird");
    expect(s.text).toBe("first\nsecond\nthird");
    expect(moveLine(s, 1)).toBeNull();
    s = moveLine(s, -1)!;
    expect(s.text.slice(s.cursor)).toBe("d\nthird");
    s = moveLine(moveLine(s, -1)!, -1) ?? s;
    expect(moveLine({ ...s, cursor: 2 }, -1)).toBeNull();
    expect(backspace(editorOf("ab")).text).toBe("a");
    expect(killLineBack(editorOf("keep\ndrop this")).text).toBe("keep\n");
  });

  test("history walks back and forth and returns the draft", () => {
    const h = new PromptHistory();
    h.add("one");
    h.add("two");
    expect(h.previous("draft")).toBe("two");
    expect(h.previous("two")).toBe("one");
    expect(h.previous("one")).toBeNull();
    expect(h.next()).toBe("two");
    expect(h.next()).toBe("draft");
    expect(h.next()).toBeNull();
  });
});

describe("slash commands", () => {
  test("names and quoted arguments; // escapes a prompt that starts with a slash", () => {
    expect(parseSlash("/mcp disable  files")).toEqual({ name: "mcp", args: ["disable", "files"] });
    expect(parseSlash('/model "big one" x')).toEqual({ name: "model", args: ["big one", "x"] });
    expect(parseSlash("hello /mcp")).toBeNull();
    expect(parseSlash("//usr/bin is a path")).toBeNull();
    expect(unescapePrompt("//usr/bin is a path")).toBe("/usr/bin is a path");
    expect(splitArgs(`a 'b c' "d \\" e"`)).toEqual(["a", "b c", 'd " e']);
  });

  test("/help: short usages in a column; a long one puts its summary on the next line, aligned", () => {
    const text = helpText([{ name: "compact", usage: "/compact [instructions for the summary]", summary: "Summarize the conversation" }], null);
    const lines = text.split("\n");
    const exit = lines.find((l) => l.startsWith("  /exit"))!;
    const column = exit.indexOf("Detach");
    expect(column).toBeLessThanOrEqual(20);
    const at = lines.indexOf("  /compact [instructions for the summary]");
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]!.indexOf("Summarize")).toBe(column);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(100);
  });
});
