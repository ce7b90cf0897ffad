// A cache of bearer lookups (hits and misses) keyed by token hash, valid only while the database is
// unchanged. What "unchanged" means is the database's change stamp (DbStamp): on SQLite the commit counters
// (SqliteStamp), on PostgreSQL the notifications every writing statement sends (db/pg-changes.ts). When the
// stamp moves the cache is emptied, so a revocation takes effect on the next request. Without the cache a
// token lookup costs ~18 µs of SQLite file locking, or a round trip to PostgreSQL.
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
 * The database's change stamp, shared by every cache of one gateway process: a number that moves whenever
 * anything a cache may hold was written, by this process or any other. A stamp that cannot vouch for the
 * database (PostgreSQL while its change listener is not connected) moves on every read, so caches hold
 * nothing until it can again.
 */
export interface DbStamp {
  current(): number;
  /** Called when the stamp moves by itself (a change announced by the database), not only when read. */
  onChange?(listener: () => void): () => void;
}

/** SQLite's stamp: this connection's commits and other processes' commits, read from SQLite's own counters. */
export class SqliteStamp implements DbStamp {
  private readonly dataVersion;
  private readonly pagerVersion = new Uint32Array(2);
  private version = -1;
  private versionCheckedAt = -Infinity;
  private pager = -1;
  private generation = 0;

  constructor(private readonly sqlite: Database) {
    this.dataVersion = sqlite.query<{ data_version: number }, []>("PRAGMA data_version");
  }

  /**
   * Other processes' commits are rechecked at most once per ms (PRAGMA data_version takes a file lock, about
   * 2.5 µs); this connection's commits are seen at once through the pager's counter (about 0.05 µs; a
   * `SELECT total_changes()` per request cost ten times that).
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

  /**
   * The cached lookup for `hash`: a value, null for a known miss, undefined when not cached (then read the
   * database and `set` the result with the `since` taken before the read).
   */
  get(hash: string): T | null | undefined {
    const stamp = this.stamp.current();
    if (stamp !== this.stampSeen) {
      this.entries.clear();
      this.stampSeen = stamp;
    }
    return this.entries.get(hash);
  }

  /** The stamp of the last `get`: a read started after it reflects at least that state of the database. */
  get since(): number {
    return this.stampSeen;
  }

  /**
   * Stores what a read started at stamp `since` found, unless the database changed after that (the stamp
   * moved while the read was in flight): the read may predate a revocation whose notice already cleared
   * the cache, and storing it would revive the revoked token.
   */
  set(hash: string, value: T | null, since: number): void {
    if (since !== this.stampSeen || since !== this.stamp.current()) return;
    // Bounded: a flood of guessed tokens cannot grow memory without limit.
    if (this.entries.size >= CACHE_MAX) this.entries.clear();
    this.entries.set(hash, value);
  }
}
