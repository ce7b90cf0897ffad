// Issue 27 item 3, on the screen: `/` opens a menu of commands with their summaries (fuzzy), `/model`
// and `/facet` offer the catalog's models (window, price) and facets, `@` offers the project's files; Up,
// Down, Tab and Enter pick, Esc closes (and does not interrupt the turn).
import { describe, expect, test } from "bun:test";
import { render } from "ink-testing-library";
import { App } from "../../tui/app.tsx";
import { applyCompletion, completions, completionToken } from "../../tui/completion.ts";
import { fuzzyFilter } from "../../tui/fuzzy.ts";
import { modelDetail } from "../../tui/run.tsx";
import { ViewStore } from "../../tui/view-store.ts";
import { testSnapshot } from "./sync-fixtures.ts";

const plain = (s: string) => s.replace(/\x1b\[[\d;:]*m/g, "");

async function until(check: () => boolean, what: string, frame: () => string) {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`waited for ${what}; the screen shows:\n${frame()}`);
    await Bun.sleep(10);
  }
}

function mount() {
  const store = new ViewStore();
  store.onSnapshot(testSnapshot(0), false);
  store.catalogModels = [
    { name: "big", detail: modelDetail({ name: "big", class: "full", capabilities: { context_window: 200_000 }, cost: { input: 3, output: 15 } }) },
    { name: "small", detail: modelDetail({ name: "small", class: "mini", capabilities: { context_window: 128_000 } }) },
  ];
  store.catalogFacets = [
    { name: "plan", detail: "Plans before it changes anything · read-only" },
    { name: "execute", detail: "Does the work" },
  ];
  const sent: string[] = [];
  const commands: [string, string[]][] = [];
  const actions = {
    commands: async () => ({ commands: [{ name: "compact", usage: "/compact [instructions]", summary: "Summarize the conversation" }, { name: "model", usage: "/model [NAME]", summary: "Show or switch the model" }] }),
    sessionCommand: async (name: string, args: string[]) => (commands.push([name, args]), { message: `ran ${name}` }),
    prompt: async (text: string) => void sent.push(text),
    interrupt: async () => {
      throw new Error("no interrupt expected");
    },
  };
  const ui = render(<App store={store} actions={actions as never} onExit={() => {}} files={async () => ["docs/tui.md", "src/tools/file-catalog.ts", "tui/view-store.ts", "tui/app.tsx"]} />);
  const frame = () => plain(ui.lastFrame() ?? "");
  const wait = (check: string | (() => boolean), what = String(check)) => until(typeof check === "string" ? () => frame().includes(check) : check, what, frame);
  /** Types `text` key by key; the editor then shows `shown` (what was there before, and `text`). */
  const type = async (text: string, shown = text) => {
    for (const ch of text) {
      ui.stdin.write(ch);
      await Bun.sleep(5);
    }
    await wait(`› ${shown}`.trimEnd());
  };
  return { ui, frame, wait, type, sent, commands, key: (k: string) => ui.stdin.write(k) };
}

describe("completion menus (issue 27 item 3)", () => {
  test("/ lists the commands with their summaries; typing filters fuzzily; Tab completes", async () => {
    const v = mount();
    await v.type("/");
    await v.wait("/compact [instructions]");
    expect(v.frame()).toMatch(/❯ \/help\s+List the commands/);
    expect(v.frame()).toMatch(/\/kill-session\s+Stop the session/);
    expect(v.frame()).toContain("Summarize the conversation");
    await v.type("cmp", "/cmp");
    await v.wait(() => /❯ \/compact/.test(v.frame()), "compact chosen");
    expect(v.frame()).not.toContain("/kill-session");
    v.key("\t");
    await v.wait("› /compact ");
    expect(v.frame()).not.toContain("Tab or Enter picks");
    v.ui.unmount();
  });

  test("/model offers the catalog's models with window and price; Enter picks, Enter again runs", async () => {
    const v = mount();
    await v.type("/model ");
    await v.wait("200k context");
    expect(v.frame()).toMatch(/❯ big\s+full · 200k context · \$3\/\$15 per M tokens/);
    expect(v.frame()).toMatch(/small\s+mini · 128k context/);
    v.key("\x1b[B");
    await v.wait(() => /❯ small/.test(v.frame()), "the second model chosen");
    v.key("\r");
    await v.wait("› /model small");
    v.key("\r");
    await v.wait(() => v.commands.length === 1, "the command to run");
    expect(v.commands).toEqual([["model", ["small"]]]);
    await v.type("/facet pl");
    await v.wait(/* the facet's description */ "Plans before it changes anything");
    v.ui.unmount();
  });

  test("@ offers the project's files (fuzzy, file names first); the pick is a reference in the prompt", async () => {
    const v = mount();
    await v.type("look at @vist");
    await v.wait(() => /❯ tui\/view-store\.ts/.test(v.frame()), "the file chosen");
    v.key("\r");
    await v.wait("› look at @tui/view-store.ts");
    await v.type("and fix it", "look at @tui/view-store.ts and fix it");
    v.key("\r");
    await v.wait(() => v.sent.length === 1, "the prompt sent");
    expect(v.sent).toEqual(["look at @tui/view-store.ts and fix it"]);
    v.ui.unmount();
  });

  test("Esc closes the menu (the typed text stays) and Enter then sends", async () => {
    const v = mount();
    await v.type("/hel");
    await v.wait("❯ /help");
    v.key("\x1b");
    await v.wait(() => !v.frame().includes("Tab or Enter picks"), "the menu closed");
    expect(v.frame()).toContain("› /hel");
    v.ui.unmount();
  });

  test("the rules: which token completes, fuzzy order, the text after a pick", () => {
    expect(completionToken({ text: "/mo", cursor: 3 })).toEqual({ kind: "command", query: "mo", start: 0, end: 3 });
    expect(completionToken({ text: "//x", cursor: 3 })).toBeNull();
    expect(completionToken({ text: "see a@b", cursor: 7 })).toBeNull();
    expect(completionToken({ text: "see @sr", cursor: 7 })).toEqual({ kind: "file", query: "sr", start: 4, end: 7 });
    expect(fuzzyFilter("fc", ["src/file-catalog.ts", "docs/fancy.md", "zzz"], (s) => s, 5)).toEqual(["src/file-catalog.ts", "docs/fancy.md"]);
    const t = completionToken({ text: "see @sr now", cursor: 7 })!;
    const [item] = completions(t, { commands: [], files: ["src/a.ts"], models: [], facets: [] });
    expect(applyCompletion({ text: "see @sr now", cursor: 7 }, t, item!, false)).toEqual({ text: "see @src/a.ts now", cursor: 13 });
  });
});
