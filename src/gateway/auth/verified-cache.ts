// A cache of bearer lookups (hits and misses) keyed by token hash, valid only while the database is
// unchanged: a commit by another process moves `PRAGMA data_version`, a write on this connection moves
// `total_changes()`, and either clears it, so a revocation takes effect on the next request (from another
// process: within a millisecond). Without it a token lookup costs ~18 µs of SQLite file locking.
import type { Database } from "bun:sqlite";

const CACHE_MAX = 10_000;

/**
 * SHA-256 hex of a presented token: the lookup key of every bearer family stored by hash (the same value as
 * util's sha256Hex; the static hasher is about 4x cheaper per call, which matters on the bearer hot path).
 */
export function tokenHash(token: string): string {
  return Bun.CryptoHasher.hash("sha256", token, "hex") as string;
}

/** The database's change stamp, shared by every cache on one connection. */
export class DbStamp {
  private readonly dataVersion;
  private readonly totalChanges;
  private version = -1;
  private versionCheckedAt = -Infinity;
  private changes = -1;
  private generation = 0;

  constructor(sqlite: Database) {
    this.dataVersion = sqlite.query<{ data_version: number }, []>("PRAGMA data_version");
    this.totalChanges = sqlite.query<{ c: number }, []>("SELECT total_changes() AS c");
  }

  /**
   * A number that moves whenever anything was written. Other processes' commits are rechecked at most once
   * per ms (PRAGMA data_version takes a file lock, about 2.5 µs); this connection's writes are seen at once.
   */
  current(): number {
    const now = performance.now();
    if (now - this.versionCheckedAt >= 1) {
      const version = this.dataVersion.get()!.data_version;
      this.versionCheckedAt = now;
      if (version !== this.version) {
        this.version = version;
        this.generation++;
      }
    }
    const changes = this.totalChanges.get()!.c;
    if (changes !== this.changes) {
      this.changes = changes;
      this.generation++;
    }
    return this.generation;
  }
}

export class VerifiedCache<T> {
  private readonly entries = new Map<string, T | null>();
  private stampSeen = -1;

  constructor(private readonly stamp: DbStamp) {}

  /** The cached lookup for `hash`: a value, null for a known miss, undefined when not cached. */
  get(hash: string): T | null | undefined {
    const stamp = this.stamp.current();
    if (stamp !== this.stampSeen) {
      this.entries.clear();
      this.stampSeen = stamp;
    }
    return this.entries.get(hash);
  }

  set(hash: string, value: T | null): void {
    // Bounded: a flood of guessed tokens cannot grow memory without limit.
    if (this.entries.size >= CACHE_MAX) this.entries.clear();
    this.entries.set(hash, value);
  }
}
