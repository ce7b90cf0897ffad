// The session's metadata row: identity, title, lifecycle state and the counters the protocol exposes.
import { eq, sql } from "drizzle-orm";
import type { SessionDb } from "./open.ts";
import { sessionMeta } from "./schema.ts";

export type SessionState = "running" | "stopping" | "stopped";

export interface SessionMeta {
  id: string;
  project: string;
  createdAt: number;
  updatedAt: number;
  title: string | null;
  state: SessionState;
  finalized: boolean;
  sourceRevision: number;
  generation: number;
}

export class MetaTable {
  constructor(private readonly db: SessionDb) {}

  get(): SessionMeta | null {
    const row = this.db.select().from(sessionMeta).get();
    if (!row) return null;
    const { tokenKey: _key, ...meta } = row;
    return meta;
  }

  /** The HMAC key of this session's opaque tokens. */
  tokenKey(): Buffer {
    const row = this.db.select({ k: sessionMeta.tokenKey }).from(sessionMeta).get();
    if (!row) throw new Error("session store has no metadata row");
    return Buffer.from(row.k, "base64");
  }

  insert(meta: { id: string; project: string; title: string | null; now: number; tokenKey: Buffer }): void {
    this.db
      .insert(sessionMeta)
      .values({ id: meta.id, project: meta.project, title: meta.title, createdAt: meta.now, updatedAt: meta.now, tokenKey: meta.tokenKey.toString("base64") })
      .run();
  }

  /** A state change is a change of the history source: stopped-history checkpoints taken before it become invalid. */
  setState(id: string, state: SessionState, finalized: boolean, now: number): void {
    this.db
      .update(sessionMeta)
      .set({ state, finalized, updatedAt: now, sourceRevision: sql`${sessionMeta.sourceRevision} + 1` })
      .where(eq(sessionMeta.id, id))
      .run();
  }

  setTitle(id: string, title: string, now: number): void {
    this.db.update(sessionMeta).set({ title, updatedAt: now }).where(eq(sessionMeta.id, id)).run();
  }

  /** Counts one more accepted prompt and returns its generation. */
  nextGeneration(id: string): number {
    const row = this.db
      .update(sessionMeta)
      .set({ generation: sql`${sessionMeta.generation} + 1` })
      .where(eq(sessionMeta.id, id))
      .returning({ g: sessionMeta.generation })
      .get();
    return row!.g;
  }
}
