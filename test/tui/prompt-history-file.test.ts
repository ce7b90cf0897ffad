// Prompt history across views: kept 0600, oldest first, a torn line skipped, bounded.
import { expect, test } from "bun:test";
import { appendFileSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PromptHistory } from "../../tui/editor-model.ts";
import { appendPromptHistory, HISTORY_KEEP, loadPromptHistory } from "../../tui/prompt-history-file.ts";

test("prompts are kept in a 0600 file and come back, newest last; a torn line is skipped; the file stays bounded", () => {
  const path = join(mkdtempSync(join(tmpdir(), "agent-hist-")), "agent", "prompt-history.jsonl");
  expect(loadPromptHistory(path)).toEqual([]);
  const history = new PromptHistory(loadPromptHistory(path), (t) => appendPromptHistory(path, t));
  history.add("first\nwith a second line");
  history.add("second");
  expect(statSync(path).mode & 0o777).toBe(0o600);
  appendFileSync(path, '"torn');
  expect(loadPromptHistory(path)).toEqual(["first\nwith a second line", "second"]);
  const again = new PromptHistory(loadPromptHistory(path));
  expect(again.previous("")).toBe("second");
  expect(again.previous("second")).toBe("first\nwith a second line");
  for (let i = 0; i < HISTORY_KEEP * 2 + 5; i++) appendPromptHistory(path, `p${i}`);
  expect(readFileSync(path, "utf8").split("\n").length).toBeLessThanOrEqual(HISTORY_KEEP * 2 + 1);
  expect(loadPromptHistory(path).at(-1)).toBe(`p${HISTORY_KEEP * 2 + 4}`);
  expect(loadPromptHistory(path)).toHaveLength(HISTORY_KEEP);
});
