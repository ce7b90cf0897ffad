// A quiet process gives back memory it is not using: the JS heap is collected and the clean code pages
// its work touched are released (resident-pages.ts). A session daemon spends most of its life waiting for
// the next prompt, often for hours, and a conversation view waits for its user between turns, so what
// they hold then is what they cost the machine. The daemon releases once startup is over and again each
// time it falls quiet after work; the view (src/cli/tui-memory.ts) each time it falls quiet after a turn
// or the user's typing.
// Quiet is read from the process's own CPU clock, not from hooks in the request and turn paths: an
// interval in which the whole process (turns, requests, streams, tool servers' I/O, drawing) used less
// than a small budget of CPU is quiet. The release's own CPU is left out of the next interval, so a
// release never makes the following interval look busy.
import { releaseCleanPages } from "./resident-pages.ts";

export interface IdleTrimOptions {
  /** How often the CPU clock is read (default 5 s): memory goes back 5 to 10 s after work ends. */
  intervalMs?: number;
  /** An interval that used less CPU than this (ms) is quiet (default 50 ms, 1% of a core: an idle daemon still runs the collector's timers and heartbeats). */
  quietCpuMs?: number;
  /** The process's CPU time in ms (default: process.cpuUsage()). */
  cpuMs?: () => number;
  /** Gives memory back (default: a full collection, then releaseCleanPages). */
  release?: () => Promise<unknown>;
}

export interface IdleTrim {
  /** Gives memory back now (startup is over). */
  releaseNow(): Promise<void>;
  stop(): void;
}

const processCpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

const collectAndRelease = async () => {
  Bun.gc(true);
  await releaseCleanPages();
};

/** Watches for quiet intervals; after each busy spell, the first quiet interval gives memory back once. */
export function trimWhenIdle(options: IdleTrimOptions = {}): IdleTrim {
  const intervalMs = options.intervalMs ?? 5_000;
  const quietCpuMs = options.quietCpuMs ?? 50;
  const cpuMs = options.cpuMs ?? processCpuMs;
  const release = options.release ?? collectAndRelease;
  let last = cpuMs();
  // Whether memory was given back since the last busy interval.
  let released = false;
  let running = false;

  const releaseNow = async () => {
    if (running) return;
    running = true;
    try {
      await release();
    } catch {
      // Best effort: a failed release leaves memory where it was.
    } finally {
      running = false;
      released = true;
      last = cpuMs();
    }
  };

  const timer = setInterval(() => {
    if (running) return;
    const now = cpuMs();
    const used = now - last;
    last = now;
    if (used >= quietCpuMs) released = false;
    else if (!released) void releaseNow();
  }, intervalMs);
  // Never the reason a stopping daemon stays up.
  timer.unref();

  return { releaseNow, stop: () => clearInterval(timer) };
}
