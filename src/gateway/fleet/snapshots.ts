// Catalog snapshots: a catalog is captured once (projects, sessions, the journal position) and cut into
// pages of at most N entries and M bytes of JSON; later pages are read from the same capture through its
// signed snapshot token. The store keeps a bounded number of captures, bytes and minutes; an expired or
// evicted capture is 410 snapshot_expired.
import { FLEET_FEATURES } from "../../protocol/features.ts";
import type { FleetProject, FleetSession } from "../../protocol/fleet-event.ts";
import { TokenError, type TokenSigner } from "../../protocol/tokens.ts";
import { newId } from "../../util/ids.ts";
import { isoAt, type Clock } from "../../util/clock.ts";
import { FleetError, invalidQuery } from "./fleet-error.ts";
import type { FleetLimits } from "./limits.ts";

interface Page {
  projects: string[];
  sessions: string[];
}

interface Snapshot {
  id: string;
  token: string;
  cursor: string;
  expiresAt: number;
  pages: Page[];
  totalProjects: number;
  totalSessions: number;
  bytes: number;
}

export class CatalogSnapshots {
  private readonly store = new Map<string, Snapshot>();

  constructor(
    private readonly epoch: string,
    private readonly signer: TokenSigner,
    private readonly clock: Clock,
    private readonly limits: FleetLimits,
  ) {}

  get size(): number {
    return this.store.size;
  }

  /** Captures a catalog and returns its first page. `pageEntries` lowers the per-page entry bound. */
  capture(cursor: string, projects: FleetProject[], sessions: FleetSession[], pageEntries = this.limits.catalogPageEntries): string {
    const now = this.clock.now();
    const id = newId("fsn", now);
    const token = this.signer.sign("chk", { c: id });
    const expiresAt = now + this.limits.snapshotTtlMs;
    // Every number in a page's envelope is at most the entry total: written that wide, it bounds the envelope.
    const wide = 10 ** String(Math.max(projects.length + sessions.length, 1)).length - 1;
    const envelope = Buffer.byteLength(this.envelope(cursor, token, expiresAt, { index: wide, count: wide, next: wide, entries: wide, total_projects: wide, total_sessions: wide }));
    const budget = this.limits.catalogPageBytes - envelope;
    const pages: Page[] = [];
    let page: Page = { projects: [], sessions: [] };
    let used = 0;
    let bytes = 0;
    const add = (list: "projects" | "sessions", entry: unknown) => {
      const text = JSON.stringify(entry);
      const size = Buffer.byteLength(text) + 1; // and its comma
      if (size > budget) throw new FleetError("fleet_capacity_exceeded", "a catalog entry is larger than a catalog page");
      if (page.projects.length + page.sessions.length >= pageEntries || used + size > budget) {
        pages.push(page);
        page = { projects: [], sessions: [] };
        used = 0;
      }
      page[list].push(text);
      used += size;
      bytes += size;
    };
    for (const p of projects) add("projects", p);
    for (const s of sessions) add("sessions", s);
    pages.push(page);
    bytes += envelope * pages.length;
    if (bytes > this.limits.snapshotStoreBytes) throw new FleetError("fleet_capacity_exceeded", "the fleet catalog is larger than the snapshot store");
    this.evict(now, bytes);
    const snapshot: Snapshot = { id, token, cursor, expiresAt, pages, totalProjects: projects.length, totalSessions: sessions.length, bytes };
    this.store.set(id, snapshot);
    return this.render(snapshot, 0);
  }

  /** A later page of a captured catalog. */
  page(token: string, index: number): string {
    let id: string;
    try {
      id = this.signer.verify("chk", token).c!;
    } catch (error) {
      if (error instanceof TokenError && error.problem === "wrong_epoch") throw new FleetError("snapshot_expired", "the snapshot is from an earlier fleet epoch; fetch a new catalog");
      throw new FleetError("invalid_checkpoint", "the snapshot token is not one this gateway issued; use the token of a catalog response");
    }
    const snapshot = this.store.get(id);
    if (!snapshot || snapshot.expiresAt <= this.clock.now()) {
      this.store.delete(id);
      throw new FleetError("snapshot_expired", "the snapshot has expired or was evicted; fetch a new catalog");
    }
    if (!Number.isSafeInteger(index) || index >= snapshot.pages.length) throw invalidQuery();
    return this.render(snapshot, index);
  }

  private render(s: Snapshot, index: number): string {
    const page = s.pages[index]!;
    const info = {
      index,
      count: s.pages.length,
      next: index + 1 < s.pages.length ? index + 1 : null,
      entries: page.projects.length + page.sessions.length,
      total_projects: s.totalProjects,
      total_sessions: s.totalSessions,
    };
    const head = this.envelope(s.cursor, s.token, s.expiresAt, info);
    return `${head.slice(0, -'],"sessions":[]}'.length)}${page.projects.join(",")}],"sessions":[${page.sessions.join(",")}]}`;
  }

  /** The page JSON with empty lists; entries are spliced into it. */
  private envelope(cursor: string, token: string, expiresAt: number, page: Record<string, number | null>): string {
    return JSON.stringify({ version: 1, fleet_epoch: this.epoch, cursor, snapshot: token, expires_at: isoAt(expiresAt), features: FLEET_FEATURES, page, projects: [], sessions: [] });
  }

  /** Drops expired captures, then the oldest while the count or byte bound requires room for `incoming`. */
  private evict(now: number, incoming: number): void {
    for (const [id, s] of this.store) if (s.expiresAt <= now) this.store.delete(id);
    let used = 0;
    for (const s of this.store.values()) used += s.bytes;
    for (const [id, s] of this.store) {
      if (this.store.size < this.limits.snapshotsRetained && used + incoming <= this.limits.snapshotStoreBytes) break;
      this.store.delete(id);
      used -= s.bytes;
    }
  }
}
