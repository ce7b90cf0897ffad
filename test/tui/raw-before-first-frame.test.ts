// The terminal is put in raw mode before Ink's first frame, and back in cooked mode afterwards; a stdin
// that is not a terminal (a pipe) is left alone.
import { describe, expect, test } from "bun:test";
import { rawBeforeFirstFrame, type RawStdin } from "../../tui/raw-before-first-frame.ts";

function fakeStdin(isTTY: boolean, isRaw = false): RawStdin & { modes: boolean[] } {
  const modes: boolean[] = [];
  const stdin = {
    isTTY,
    isRaw,
    modes,
    setRawMode(mode: boolean) {
      modes.push(mode);
      stdin.isRaw = mode;
      return stdin as never;
    },
  };
  return stdin;
}

describe("raw mode before the first frame", () => {
  test("a terminal is made raw at once and cooked again by the returned function", () => {
    const stdin = fakeStdin(true);
    const cooked = rawBeforeFirstFrame(stdin);
    expect(stdin.isRaw).toBe(true);
    cooked();
    expect(stdin.isRaw).toBe(false);
    expect(stdin.modes).toEqual([true, false]);
  });

  test("once Ink has turned raw mode off itself, nothing more is done", () => {
    const stdin = fakeStdin(true);
    const cooked = rawBeforeFirstFrame(stdin);
    stdin.setRawMode(false);
    cooked();
    expect(stdin.modes).toEqual([true, false]);
  });

  test("a terminal already raw (a view before this one) is left as it is", () => {
    const stdin = fakeStdin(true, true);
    rawBeforeFirstFrame(stdin)();
    expect(stdin.modes).toEqual([]);
    expect(stdin.isRaw).toBe(true);
  });

  test("a pipe is left alone", () => {
    const stdin = fakeStdin(false);
    rawBeforeFirstFrame(stdin)();
    expect(stdin.modes).toEqual([]);
  });
});
