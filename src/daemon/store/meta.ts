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

const TITLE_CHARS = 80;

/**
 * A session's title from a prompt: its first non-empty line, control characters and runs of white space
 * made one space, at most 80 characters (a cut ends in "…"); null when nothing printable is left. Titles
 * are one line wherever they are shown (`agent sessions list`, pickers). docs/decisions-daemon.md 27.
 */
export function titleFrom(text: string): string | null {
  const line = text.split(/\r?\n|\r/).find((l) => l.trim() !== "") ?? "";
  const flat = line.replace(/[\p{Cc}\p{Zl}\p{Zp}\s]+/gu, " ").trim();
  if (flat === "") return null;
  const chars = [...flat];
  return chars.length <= TITLE_CHARS ? flat : `${chars.slice(0, TITLE_CHARS - 1).join("").trimEnd()}…`;
}
