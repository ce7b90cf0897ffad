// Storage faults of a running daemon: a full disk (or quota), a read-only or failing filesystem. The
// daemon stays up through them: what could not be committed stays queued in memory (nothing committed is
// touched), the running turn ends with a storage error, commands are refused with that error, and once a
// write succeeds again the queued records are committed and the session carries on.
// A small reserve file (ballast) beside the store is given up at the first fault, so the records that end
// the turn can be committed at once and every client sees why it ended; it is made again on recovery.
import { closeSync, fsyncSync, mkdirSync, openSync, rmSync, statfsSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ProtocolError } from "../protocol/errors.ts";

export interface StorageFault {
  code: "storage_full" | "storage_failed";
  message: string;
}

const FULL = new Set(["SQLITE_FULL", "ENOSPC", "EDQUOT"]);
const FAILED = /^(SQLITE_IOERR|SQLITE_READONLY|SQLITE_CANTOPEN|EROFS$|EIO$|EACCES$|EPERM$)/;

/** The storage fault an error means (a full disk, a read-only or failing filesystem), or null. */
export function storageFaultOf(error: unknown, dir: string): StorageFault | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return null;
  if (FULL.has(code)) return { code: "storage_full", message: `the disk holding the session (${dir}) is full: nothing more can be recorded; free some space, then send the prompt again (nothing already recorded was lost)` };
  if (FAILED.test(code)) return { code: "storage_failed", message: `the session's storage (${dir}) refused a write (${code}): nothing more can be recorded until it is writable again (nothing already recorded was lost)` };
  return null;
}

export const RESERVE_FILE = "reserve";
const RESERVE_BYTES = 256 * 1024;

export interface StorageGuardHooks {
  /** Commits what is queued; true when nothing is left queued. */
  commit(): boolean;
  /** The first failed write of a fault (the running turn is ended with it). */
  onFault(fault: StorageFault, error: unknown): void;
  onRecovered(fault: StorageFault): void;
}

export class StorageGuard {
  private fault: StorageFault | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly reservePath: string;

  constructor(
    private readonly dir: string,
    private readonly hooks: StorageGuardHooks,
    private readonly retryMs = 1000,
    private readonly reserveBytes = RESERVE_BYTES,
  ) {
    this.reservePath = join(dir, "store", RESERVE_FILE);
  }

  get current(): StorageFault | null {
    return this.fault;
  }

  /** Makes the reserve file if it is missing; false when there is no room (or no write) for it. */
  ensureReserve(): boolean {
    try {
      if (statSync(this.reservePath).size >= this.reserveBytes) return true;
    } catch {
      // Missing: made below.
    }
    let fd: number | null = null;
    try {
      mkdirSync(join(this.dir, "store"), { recursive: true, mode: 0o700 });
      fd = openSync(this.reservePath, "w", 0o600);
      const block = Buffer.alloc(64 * 1024);
      for (let written = 0; written < this.reserveBytes; written += block.length) writeSync(fd, block);
      fsyncSync(fd);
      return true;
    } catch {
      rmSync(this.reservePath, { force: true });
      return false;
    } finally {
      if (fd !== null) closeSync(fd);
    }
  }

  /**
   * A write failed: true when it is a storage fault (the caller keeps what it could not write and the
   * guard retries), false for any other error (the caller rethrows it).
   */
  failed(error: unknown): boolean {
    const fault = storageFaultOf(error, this.dir);
    if (!fault) return false;
    if (!this.fault) {
      this.fault = fault;
      rmSync(this.reservePath, { force: true });
      this.hooks.onFault(fault, error);
      this.schedule(0);
    }
    return true;
  }

  /** Before a command that records something: refused with the fault's error until storage has recovered. */
  check(): void {
    if (!this.fault || this.recover()) return;
    throw new ProtocolError(this.fault.code, undefined, this.fault.message);
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    rmSync(this.reservePath, { force: true });
  }

  /** Commits what is queued and makes the reserve again; true once both succeed (the fault is over). */
  private recover(): boolean {
    const fault = this.fault;
    if (!fault) return true;
    // Space the reserve itself gave back is not recovery: wait for room beyond it (a filesystem that
    // cannot say is judged by the writes alone).
    if (freeBytes(this.dir) < 2 * this.reserveBytes) return false;
    if (!this.hooks.commit() || !this.ensureReserve()) return false;
    this.fault = null;
    this.hooks.onRecovered(fault);
    return true;
  }

  private schedule(ms: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.recover()) this.schedule(this.retryMs);
    }, ms);
    this.timer.unref?.();
  }
}

function freeBytes(dir: string): number {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/**
 * Refuses to start on a session dir nothing can be written to (a read-only mount, a full disk): the
 * session could record nothing. Throws an Error whose message says which and what to do.
 */
export function assertWritableDir(dir: string): void {
  const probe = join(dir, `.write-check-${process.pid}`);
  try {
    const fd = openSync(probe, "w", 0o600);
    try {
      writeSync(fd, "ok");
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return;
    if (code === "EROFS" || code === "EACCES" || code === "EPERM") throw new Error(`the session directory ${dir} is read-only (${code}): a session must be able to record what happens; make it writable (or mount it read-write) and start again`);
    if (code && FULL.has(code)) throw new Error(`the disk holding the session directory ${dir} is full (${code}): free some space and start again`);
    throw error;
  } finally {
    try {
      rmSync(probe, { force: true });
    } catch {
      // Nothing was made there.
    }
  }
}
