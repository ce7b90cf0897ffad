// Gives clean file-backed pages back: the executable's machine code and read-only data (and the embedded
// bundle's bytecode) that a process touched while starting or working and has not needed since. Linux
// only: `/proc/self/smaps` lists the mappings and `madvise(MADV_DONTNEED)` (through bun:ffi) drops their
// pages from this process's page tables. A dropped page stays in the kernel's page cache, so the next
// access to it is a minor fault that maps it again (about a microsecond), never a disk read while the
// file is cached and never a change of content.
// Only mappings that are file-backed, not writable, and hold no anonymous page are touched: a private
// mapping whose pages were copied on write (relocated read-only data, say) would lose those copies, so
// any mapping with an anonymous page is left alone. Anonymous memory (the JS heap, malloc) is never
// touched.
import { readFileSync } from "node:fs";

const MADV_DONTNEED = 4;

type Madvise = (address: bigint, length: bigint, advice: number) => number;

/** libc's madvise through bun:ffi, loaded on first use; null where it cannot be (not Linux, no glibc). */
let madvise: Madvise | null | undefined;

async function loadMadvise(): Promise<Madvise | null> {
  if (madvise !== undefined) return madvise;
  madvise = null;
  if (process.platform !== "linux") return null;
  try {
    const { dlopen, FFIType } = await import("bun:ffi");
    const libc = dlopen("libc.so.6", { madvise: { args: [FFIType.u64, FFIType.u64, FFIType.i32], returns: FFIType.i32 } });
    madvise = (address, length, advice) => libc.symbols.madvise(address, length, advice) as number;
  } catch {
    madvise = null;
  }
  return madvise;
}

/** One mapping of `/proc/self/smaps` that may be released. */
export interface CleanMapping {
  start: bigint;
  end: bigint;
  path: string;
  /** Resident kilobytes when read. */
  rssKb: number;
}

/**
 * The releasable mappings of an smaps text: file-backed (an inode), readable and not writable, resident,
 * with no anonymous (copied on write), swapped or locked page. Dirty pages of such a mapping are the page
 * cache's (a file written shortly before, its write-back pending): they stay in the cache, so they may go.
 */
export function cleanMappings(smaps: string): CleanMapping[] {
  const out: CleanMapping[] = [];
  let current: (CleanMapping & { ok: boolean }) | null = null;
  const close = () => {
    if (current?.ok && current.rssKb > 0) out.push({ start: current.start, end: current.end, path: current.path, rssKb: current.rssKb });
  };
  for (const line of smaps.split("\n")) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) ([-rwxsp]{4}) [0-9a-f]+ [0-9a-f]+:[0-9a-f]+ (\d+)\s*(.*)$/.exec(line);
    if (head) {
      close();
      const [, start, end, perms, inode, path] = head;
      current = { start: BigInt(`0x${start}`), end: BigInt(`0x${end}`), path: path!, rssKb: 0, ok: inode !== "0" && perms![1] !== "w" && perms![0] === "r" };
      continue;
    }
    if (!current) continue;
    const field = /^(\w+):\s+(\d+) kB/.exec(line);
    if (!field) continue;
    const [, name, value] = field;
    if (name === "Rss") current.rssKb = Number(value);
    else if ((name === "Anonymous" || name === "Swap" || name === "Locked") && value !== "0") current.ok = false;
  }
  close();
  return out;
}

/** What a release gave back: how many mappings, and the kilobytes they held resident before it. */
export interface Released {
  mappings: number;
  kb: number;
}

/**
 * Drops the clean file-backed pages of this process (see the header). Returns null where that cannot be
 * done (not Linux, no libc through bun:ffi, no smaps); never throws.
 */
export async function releaseCleanPages(): Promise<Released | null> {
  const call = await loadMadvise();
  if (!call) return null;
  let smaps: string;
  try {
    smaps = readFileSync("/proc/self/smaps", "utf8");
  } catch {
    return null;
  }
  const released: Released = { mappings: 0, kb: 0 };
  for (const m of cleanMappings(smaps)) {
    if (call(m.start, m.end - m.start, MADV_DONTNEED) !== 0) continue;
    released.mappings++;
    released.kb += m.rssKb;
  }
  return released;
}
