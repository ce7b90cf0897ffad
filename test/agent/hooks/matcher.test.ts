// Hook matchers as Claude Code reads them, over our tool names and Claude's names for them.
import { describe, expect, test } from "bun:test";
import { compileMatcher, toolNames } from "../../../src/agent/hooks/matcher.ts";

describe("hook matchers", () => {
  test("empty, missing and * match every tool", () => {
    for (const m of [undefined, "", "*", "  "]) {
      const match = compileMatcher(m);
      expect(["shell", "edit", "mcp__github__create_issue"].every(match)).toBe(true);
    }
  });

  test("a plain name matches whole: ours, or Claude Code's alias", () => {
    expect(compileMatcher("shell")("shell")).toBe(true);
    expect(compileMatcher("Bash")("shell")).toBe(true);
    expect(compileMatcher("Bash")("read")).toBe(false);
    expect(compileMatcher("Edit")("edit")).toBe(true);
    expect(compileMatcher("MultiEdit")("edit")).toBe(true);
    // apply_patch stands in for edit, so Claude's Edit covers it.
    expect(compileMatcher("Edit")("apply_patch")).toBe(true);
    expect(compileMatcher("Write")("write")).toBe(true);
    expect(compileMatcher("Write")("edit")).toBe(false);
    expect(compileMatcher("Read")("read")).toBe(true);
    expect(compileMatcher("Grep")("grep")).toBe(true);
    expect(compileMatcher("Glob")("glob")).toBe(true);
    // Whole names only: "Edit" is not a part of "MultiEdit" here, nor "read" of "readme".
    expect(compileMatcher("read")("readme")).toBe(false);
    // Case matters, as in Claude Code.
    expect(compileMatcher("bash")("shell")).toBe(false);
  });

  test("| alternation of plain names", () => {
    const m = compileMatcher("Edit|Write");
    expect(m("edit")).toBe(true);
    expect(m("write")).toBe(true);
    expect(m("shell")).toBe(false);
  });

  test("anything else is a regular expression searched in the names", () => {
    expect(compileMatcher("mcp__github__.*")("mcp__github__create_issue")).toBe(true);
    expect(compileMatcher("mcp__github__.*")("mcp__jira__x")).toBe(false);
    expect(compileMatcher("^(Bash|Read)$")("read")).toBe(true);
    expect(compileMatcher("Web.*")("web_fetch")).toBe(true);
  });

  test("an invalid expression is an error naming it", () => {
    expect(() => compileMatcher("Edit(")).toThrow("the matcher 'Edit(' is not a valid regular expression");
  });

  test("names of a call", () => {
    expect(toolNames("apply_patch")).toEqual(["apply_patch", "edit", "Edit", "MultiEdit"]);
    expect(toolNames("custom_tool")).toEqual(["custom_tool"]);
  });
});
