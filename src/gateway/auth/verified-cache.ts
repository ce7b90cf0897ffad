// A cache of bearer lookups (hits and misses) keyed by token hash, valid only while the database is
// unchanged: a commit on this connection moves the pager's data version (SQLITE_FCNTL_DATA_VERSION, read
// without a query), a commit by another process moves `PRAGMA data_version`; either clears it, so a
// revocation takes effect on the next request (from another process: within a millisecond). Without the
// cache a token lookup costs ~18 µs of SQLite file locking.
import { constants, type Database } from "bun:sqlite";

const CACHE_MAX = 10_000;

/**
 * SHA-256 hex of a presented token: the lookup key of every bearer family stored by hash (the same value as
 * util's sha256Hex; the static hasher is about 4x cheaper per call, which matters on the bearer hot path).
 */
export function tokenHash(token: string): string {
  return Bun.CryptoHasher.hash("sha256", token, "hex") as string;
}

/**
 * The database's change stamp, shared by every cache on one connection. Without a SQLite connection (the
 * gateway on PostgreSQL) every read is a new stamp: the caches hold nothing until invalidation arrives
 * through the database (LISTEN/NOTIFY), so a revocation by any replica or admin command holds at once.
 */
export class DbStamp {
  private readonly dataVersion;
  private readonly pagerVersion = new Uint32Array(2);
  private version = -1;
  private versionCheckedAt = -Infinity;
  private pager = -1;
  private generation = 0;

  constructor(private readonly sqlite: Database | null) {
    this.dataVersion = sqlite?.query<{ data_version: number }, []>("PRAGMA data_version");
  }

  /**
   * A number that moves whenever anything was written. Other processes' commits are rechecked at most once
   * per ms (PRAGMA data_version takes a file lock, about 2.5 µs); this connection's commits are seen at once
   * through the pager's counter (about 0.05 µs; a `SELECT total_changes()` per request cost ten times that).
   */
  current(): number {
    if (!this.sqlite || !this.dataVersion) return ++this.generation;
    const now = performance.now();
    if (now - this.versionCheckedAt >= 1) {
      const version = this.dataVersion.get()!.data_version;
      this.versionCheckedAt = now;
      if (version !== this.version) {
        this.version = version;
        this.generation++;
      }
    }
    this.sqlite.fileControl(constants.SQLITE_FCNTL_DATA_VERSION, this.pagerVersion);
    const pager = this.pagerVersion[0]!;
    if (pager !== this.pager) {
      this.pager = pager;
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
