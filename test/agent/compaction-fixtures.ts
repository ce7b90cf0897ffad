// The conversation the compaction tests share: a big file read in the first turn, a small one in the
// second whose reported usage crosses the threshold, and the summary the fake model answers with.
import type { FakeStep } from "../fakes/provider-fake.ts";

export const SUMMARY = "## Goal\nTune the alpha settings.\n## Progress\nRead big.txt.\n## Decisions\nKeep defaults.\n## Next steps\nRead small.txt.\n## Files\nbig.txt: the settings";

/** A 12,000-character file: one marker at its start, one early (about 1,500 characters in), one at its end. */
export function bigFile(): string {
  const line = (n: number) => `setting_${String(n).padStart(3, "0")} = ${"x".repeat(60)}\n`;
  const lines = Array.from({ length: 160 }, (_, i) => line(i));
  lines[0] = "BIGSTART\n";
  lines[20] = "EARLYMARK\n";
  lines[159] = "BIGEND\n";
  return lines.join("");
}

export const readCall = (id: string, path: string) => ({ id, name: "read", arguments: JSON.stringify({ path }) });

/**
 * Turn 1 reads the big file and answers; turn 2 reads a small one, and its report of 19,200 input tokens
 * (the threshold is 0.6 x 32,000 = 19,200) makes the engine compact before the next call.
 */
export function firstTwoTurns(): FakeStep[] {
  return [
    { kind: "turn", turn: { tool_calls: [readCall("call_big", "big.txt")], usage: { input: 4_100, output: 30 } } },
    { kind: "turn", turn: { text: "Read it: the file lists the alpha settings.", usage: { input: 7_200, output: 20 } } },
    { kind: "turn", turn: { tool_calls: [readCall("call_small", "small.txt")], usage: { input: 19_200, output: 40 } } },
  ];
}

export const FILES = { "big.txt": bigFile(), "small.txt": "beta=2\n" };

