// Issue 37 item 6: the `/` menu cut every description at the terminal's edge. The chosen row's
// description is now shown whole, wrapped in its column; the other rows stay one line each.
import { describe, expect, test } from "bun:test";
import { render } from "ink-testing-library";
import { CompletionMenu } from "../../tui/components/completion-menu.tsx";

const LONG = "Go back to before one of your prompts: files, conversation, or both (no arguments: list the prompts)";

describe("completion menu", () => {
  test("the chosen row's description is whole; another row's is cut to one line", () => {
    const items = [
      { value: "/rewind", label: "/rewind", detail: LONG },
      { value: "/review", label: "/review", detail: "Review a pull request by number" },
    ];
    // ink-testing-library draws 100 columns wide: the description column is about 88.
    const chosen = render(<CompletionMenu items={items} selected={0} empty={null} />).lastFrame()!;
    expect(chosen.replace(/\s+/g, " ")).toContain(LONG);
    const other = render(<CompletionMenu items={items} selected={1} empty={null} />).lastFrame()!;
    expect(other.replace(/\s+/g, " ")).not.toContain(LONG);
    expect(other.split("\n").filter((l) => l.includes("/rewind"))).toHaveLength(1);
  });
});
