// The diff an edit result carries for the screen: hunks with line numbers and up to 3 lines of context,
// separate hunks for distant changes, capped in size.
import { describe, expect, test } from "bun:test";
import { displayDiff } from "../../src/tools/edit/display-diff.ts";

const file = (n: number, change: (i: number) => string | null = () => null) =>
  Array.from({ length: n }, (_, i) => change(i + 1) ?? `line ${i + 1}`).join("\n") + "\n";

describe("displayDiff", () => {
  test("one change: numbered from its place in the file, with 3 lines of context around it", () => {
    const d = displayDiff(file(20), file(20, (i) => (i === 10 ? "changed 10" : null)));
    expect(d.hunks).toEqual([{ old_start: 7, new_start: 7, lines: [" line 7", " line 8", " line 9", "-line 10", "+changed 10", " line 11", " line 12", " line 13"] }]);
  });

  test("distant changes are separate hunks; an added line shifts the new numbers", () => {
    const after = file(40, (i) => (i === 5 ? "line 5\ninserted" : i === 35 ? "changed 35" : null));
    const d = displayDiff(file(40), after);
    expect(d.hunks.map((h) => [h.old_start, h.new_start])).toEqual([
      [3, 3],
      [32, 33],
    ]);
    expect(d.hunks[0]!.lines).toContain("+inserted");
    expect(d.hunks[1]!.lines).toEqual([" line 32", " line 33", " line 34", "-line 35", "+changed 35", " line 36", " line 37", " line 38"]);
  });

  test("a new file is all additions from line 1; a huge change is capped", () => {
    expect(displayDiff("", "a\nb\n").hunks).toEqual([{ old_start: 1, new_start: 1, lines: ["+a", "+b"] }]);
    const d = displayDiff("", file(1000), 3, 300);
    expect(d.hunks[0]!.lines.length).toBe(300);
    expect(d.omitted).toBe(700);
  });
});
