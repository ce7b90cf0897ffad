// Issue 27 item 4: an answer with a code block that completes before the grammars have loaded is not
// printed plain for good: it waits in the live tail and prints highlighted once they are there.
import { describe, expect, test } from "bun:test";
import { render } from "ink-testing-library";
import { App } from "../../tui/app.tsx";
import { loadHighlighter } from "../../tui/highlight.ts";
import { ViewStore } from "../../tui/view-store.ts";
import { recordSequence, testSnapshot } from "./sync-fixtures.ts";

const colorsIn = (line: string) => new Set([...line.matchAll(/\x1b\[(3\d|9\d|38;[\d;]+)m/g)].map((m) => m[1]));
const plain = (s: string) => s.replace(/\x1b\[[\d;:]*m/g, "");

describe("code blocks and the lazily loaded highlighter", () => {
  test("a code block that completes before the grammars load is printed highlighted once they have", async () => {
    const chalk = (await import("chalk")).default;
    const level = chalk.level;
    chalk.level = 3;
    try {
      // The store sees grammars that have not loaded yet (other tests in this process may have loaded the real ones).
      let loaded = false;
      const waiting: (() => void)[] = [];
      const store = new ViewStore({ loaded: () => loaded, whenLoaded: (cb) => waiting.push(cb) });
      store.onSnapshot(testSnapshot(0), false);
      const ui = render(<App store={store} actions={{} as never} onExit={() => {}} />);
      const seq = recordSequence();
      const text = "Here:\n\n```ts\nconst answer: number = 42; // the answer\n```";
      store.onRecords(
        seq.records([
          { type: "turn_started", turn_id: "t1", model: "m", facet: "execute" },
          { type: "part_started", message_id: "m1", part_id: "p1", kind: "text" },
          { type: "part_completed", message_id: "m1", part: { id: "p1", type: "text", text } },
          { type: "turn_completed", turn_id: "t1", stop_reason: "end_turn", usage: { input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 } },
        ]),
      );
      // Not printed yet: still in the live tail.
      expect(store.printed.some((b) => b.id === "p1")).toBe(false);
      expect(store.tail().some((b) => b.id === "p1")).toBe(true);
      await loadHighlighter();
      loaded = true;
      for (const cb of waiting) cb();
      const deadline = Date.now() + 5000;
      while (!store.printed.some((b) => b.id === "p1") && Date.now() < deadline) await Bun.sleep(10);
      expect(store.printed.some((b) => b.id === "p1")).toBe(true);
      await Bun.sleep(100);
      const out = ui.frames.join("\n");
      ui.unmount();
      const lines = out.split("\n").filter((l) => plain(l).includes("const answer: number = 42;"));
      // The printed (last) copy has the keyword, the number and the comment each in their own color.
      expect(colorsIn(lines.at(-1)!).size).toBeGreaterThanOrEqual(3);
    } finally {
      chalk.level = level;
    }
  });
});
