// The form a tool server's request for input opens (MCP elicitation), with the everything server's own
// field kinds: defaults filled in, typing, toggles, choices, a required field checked before Submit,
// Decline and Esc (cancel). Also the `@` menu offering a server's resources beside the files.
import { describe, expect, test } from "bun:test";
import { render } from "ink-testing-library";
import type { InterrogativeAnswer } from "../../src/agent/events.ts";
import { ElicitationForm } from "../../tui/components/elicitation-form.tsx";
import { completions, completionToken } from "../../tui/completion.ts";

const SCHEMA = {
  type: "object",
  properties: {
    name: { title: "String", type: "string", description: "Your full, legal name" },
    check: { title: "Boolean", type: "boolean", description: "Agree to the terms and conditions" },
    integer: { title: "Integer", type: "integer", minimum: 1, maximum: 100, default: 42 },
    friend: { type: "string", title: "Untitled Single Select Enum", enum: ["Monica", "Rachel", "Joey"], default: "Monica" },
    hero: { type: "string", title: "Titled Single Select Enum", oneOf: [{ const: "hero-1", title: "Superman" }, { const: "hero-2", title: "Green Lantern" }], default: "hero-1" },
    fish: { type: "array", title: "Titled Multiple Select Enum", minItems: 1, maxItems: 3, items: { anyOf: [{ const: "fish-1", title: "Tuna" }, { const: "fish-2", title: "Salmon" }] }, default: ["fish-1"] },
  },
  required: ["name"],
};

async function keys(ui: ReturnType<typeof render>, ...input: string[]) {
  for (const k of input) {
    ui.stdin.write(k);
    await Bun.sleep(15);
  }
}

function form(answers: InterrogativeAnswer[]) {
  return render(<ElicitationForm server="ev" message="Please provide inputs for the following fields:" schema={SCHEMA} onAnswer={(a) => answers.push(a)} active error={null} />);
}

const DOWN = "\u001b[B";
const RIGHT = "\u001b[C";

describe("elicitation form", () => {
  test("shows the message and fields with defaults; a required field is checked; Submit sends the values", async () => {
    const answers: InterrogativeAnswer[] = [];
    const ui = form(answers);
    const first = ui.lastFrame()!;
    expect(first).toContain("Tool server ev asks: Please provide inputs for the following fields:");
    expect(first).toContain("String *:");
    expect(first).toContain("Your full, legal name");
    expect(first).toContain("Integer: 42");
    expect(first).toContain("‹ Monica ›");
    expect(first).toContain("‹ Superman ›");
    expect(first).toContain("[x] Tuna");
    expect(first).toContain("Submit");
    await Bun.sleep(20);
    // Straight to Submit: the required name is missing.
    await keys(ui, ...Array(6).fill(DOWN), "\r");
    expect(answers).toEqual([]);
    expect(ui.lastFrame()).toContain("String: required");
    // The cursor went back to the name: type it, agree, pick the next friend and hero, add Salmon.
    await keys(ui, "Ada", "\r", " ", "\r", "\u007f", "7", "\r", RIGHT, "\r", RIGHT, "\r", RIGHT, " ", "\r", "\r");
    expect(answers).toEqual([{ decision: "accept", content: { name: "Ada", check: true, integer: 47, friend: "Rachel", hero: "hero-2", fish: ["fish-1", "fish-2"] } }]);
  });

  test("a number out of range is refused; Decline and Esc answer without values", async () => {
    const answers: InterrogativeAnswer[] = [];
    const ui = form(answers);
    await Bun.sleep(20);
    await keys(ui, "Ada", "\r", "\r", "\u007f", "\u007f", "500", "\r", "\r", "\r", "\r", "\r");
    expect(answers).toEqual([]);
    expect(ui.lastFrame()).toContain("Integer: at most 100");
    // The cursor is on the integer again: five rows down is Decline.
    await keys(ui, ...Array(5).fill(DOWN), "\r");
    expect(answers).toEqual([{ decision: "decline" }]);
    const other: InterrogativeAnswer[] = [];
    const ui2 = form(other);
    await Bun.sleep(20);
    await keys(ui2, "\u001b");
    await Bun.sleep(60);
    expect(other).toEqual([{ decision: "cancel" }]);
  });

  test("the @ menu offers the servers' resources beside the project's files", () => {
    const token = completionToken({ text: "look at @ev:arch", cursor: 16 })!;
    expect(token.kind).toBe("file");
    const items = completions(token, { commands: [], files: ["src/app.ts"], resources: [{ server: "ev", uri: "demo://resource/static/document/architecture.md", name: "architecture.md" }], models: [], facets: [] });
    expect(items[0]).toEqual({ value: "@ev:demo://resource/static/document/architecture.md", label: "ev:demo://resource/static/document/architecture.md", detail: "architecture.md" });
  });
});
