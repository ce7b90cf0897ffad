// The operation ledger: the stored result of every correlated command, keyed by (window, operation),
// kept until its window expires. Bounded by entry count and bytes; a full ledger refuses new entries.
import { and, eq, lte, sql } from "drizzle-orm";
import type { SessionDb } from "./open.ts";
import { operations } from "./schema.ts";

export type OperationStatus = "admitted" | "in_progress" | "completed" | "failed";

export interface LedgerEntry {
  windowId: string;
  operation: string;
  route: string;
  digest: string;
  status: OperationStatus;
  httpStatus: number;
  /** The response body (JSON text) a retry receives. */
  result: string;
  expiresAt: number;
}

export interface LedgerLimits {
  maxEntries: number;
  maxBytes: number;
}

export const LEDGER_LIMITS: LedgerLimits = { maxEntries: 4096, maxBytes: 32 * 1024 * 1024 };

export class Ledger {
  constructor(
    private readonly db: SessionDb,
    private readonly limits: LedgerLimits = LEDGER_LIMITS,
  ) {}

  get(windowId: string, operation: string): LedgerEntry | null {
    const row = this.db
      .select()
      .from(operations)
      .where(and(eq(operations.windowId, windowId), eq(operations.operation, operation)))
      .get();
    return row ?? null;
  }

  /** Drops entries whose window has expired (their results are no longer replayable). */
  evictExpired(now: number): void {
    this.db.delete(operations).where(lte(operations.expiresAt, now)).run();
  }

  /** Whether one more entry of `bytes` fits the bounds (after expired entries are gone). */
  hasRoom(bytes: number, now: number): boolean {
    this.evictExpired(now);
    const row = this.db.select({ n: sql<number>`count(*)`, b: sql<number>`coalesce(sum(${operations.bytes}), 0)` }).from(operations).get()!;
    return row.n + 1 <= this.limits.maxEntries && row.b + bytes <= this.limits.maxBytes;
  }

  insert(entry: LedgerEntry, now: number): void {
    this.db
      .insert(operations)
      .values({ ...entry, bytes: entryBytes(entry), createdAt: now })
      .run();
  }

  update(windowId: string, operation: string, change: { status: OperationStatus; httpStatus: number; result: string }): void {
    this.db
      .update(operations)
      .set({ ...change, bytes: sql`length(${operations.route}) + length(${operations.digest}) + ${Buffer.byteLength(change.result)} + 64` })
      .where(and(eq(operations.windowId, windowId), eq(operations.operation, operation)))
      .run();
  }

  /** Non-terminal entries (admitted or in progress), oldest first: a restarted daemon settles them. */
  unsettled(): LedgerEntry[] {
    return this.db
      .select()
      .from(operations)
      .where(sql`${operations.status} IN ('admitted', 'in_progress')`)
      .orderBy(operations.createdAt)
      .all();
  }
}

/** What an entry counts toward the byte bound: its stored texts plus a fixed row overhead. */
export function entryBytes(entry: Pick<LedgerEntry, "route" | "digest" | "result">): number {
  return entry.route.length + entry.digest.length + Buffer.byteLength(entry.result) + 64;
}
