// The conversation view's process gives memory back while it waits (src/platform/idle-trim.ts): after a
// turn has been drawn, or the user stopped typing, and the process then used under 1% of a core for
// INTERVAL_MS, the JS heap is collected and the code pages the drawing touched are dropped. A view left
// open in a terminal tab for hours then holds about 55 MB instead of 95 (docs/decisions-tui.md 56).
// The next keystroke maps the code it needs back from the page cache (minor faults, never a disk read
// while the binary is cached).
import { trimWhenIdle } from "../platform/idle-trim.ts";

/** Shorter than the daemon's 5 s: a view is quiet between a user's turns, and its first frame is already drawn. */
const INTERVAL_MS = 2_000;
/** 1% of a core over the interval: the view's idle timers stay far below it; drawing a streamed answer does not. */
const QUIET_CPU_MS = 20;

/** Runs the view with the release watching; the watching ends with it. */
export async function withIdleTrim<T>(run: () => Promise<T>): Promise<T> {
  const trim = trimWhenIdle({ intervalMs: INTERVAL_MS, quietCpuMs: QUIET_CPU_MS });
  try {
    return await run();
  } finally {
    trim.stop();
  }
}
