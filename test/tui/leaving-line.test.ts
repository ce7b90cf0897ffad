// Issue 37 item 6: the line printed on leaving the view (after Ink is gone) was written as one long line,
// which a 120-column terminal cut mid-word ("agent continue ses_…" split in two). It is now broken between
// words at the terminal's width.
import { describe, expect, test } from "bun:test";
import { byWords, leavingLine } from "../../tui/run.tsx";

describe("the leaving line", () => {
  test("breaks between words at 120 columns; every word stays whole", () => {
    const id = "ses_06h2k8c9x0mzq3v5w7y1a4b6dd";
    const line = leavingLine(id, { stopped: false, busy: true }, `agent continue ${id}`);
    expect(line.length).toBeGreaterThan(120);
    const rows = byWords(line, 120).split("\n");
    expect(rows.length).toBe(2);
    for (const row of rows) expect(row.length).toBeLessThanOrEqual(120);
    expect(rows.join(" ")).toBe(line);
    expect(rows[1]).toContain(`agent continue ${id}`);
    // No terminal width known (a pipe): the line is left as it is.
    expect(byWords(line, undefined)).toBe(line);
  });
});
