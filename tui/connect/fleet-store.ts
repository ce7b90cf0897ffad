// What the picker shows: the gateway's projects and sessions, from a fleet catalog (every page of one
// snapshot) kept current by the fleet event stream. Events of another fleet epoch never apply; a reset
// means "fetch a new catalog". The screen subscribes and is told once per change.
import type { Static } from "@sinclair/typebox";
import type { FleetCatalogPage, FleetEvent, FleetProject, FleetSession } from "../../src/protocol/fleet-event.ts";

/**
 * A session as a gateway sends it. A gateway from before hosts (issue 39), and events it journaled before
 * an upgrade, carry neither `owner_host` nor `host_online`: such a session is online, on no named host.
 */
export type WireSession = Omit<FleetSession, "owner_host" | "host_online"> & Partial<Pick<FleetSession, "owner_host" | "host_online">>;
export type CatalogPage = Omit<Static<typeof FleetCatalogPage>, "sessions"> & { sessions: WireSession[] };
type SessionUpserted = Extract<FleetEvent, { type: "session_upserted" }>;
export type WireEvent = Exclude<FleetEvent, SessionUpserted> | (Omit<SessionUpserted, "session"> & { session: WireSession });

function withHost(s: WireSession): FleetSession {
  return { ...s, owner_host: s.owner_host ?? null, host_online: s.host_online ?? true };
}

export type FeedState = "loading" | "live" | "reconnecting";

export class FleetStore {
  projects = new Map<string, FleetProject>();
  sessions = new Map<string, FleetSession>();
  epoch: string | null = null;
  cursor: string | null = null;
  feed: FeedState = "loading";
  /** Why the feed is not live (shown under the tables). */
  problem: string | null = null;
  private listeners = new Set<() => void>();
  private version = 0;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getVersion = (): number => this.version;

  changed(): void {
    this.version++;
    for (const l of this.listeners) l();
  }

  /** Replaces everything with a catalog (all pages of one snapshot, in order). */
  loadCatalog(pages: CatalogPage[]): void {
    const first = pages[0]!;
    this.projects = new Map(pages.flatMap((p) => p.projects).map((p) => [p.project_id, p]));
    this.sessions = new Map(pages.flatMap((p) => p.sessions).map((s) => [s.session_id, withHost(s)]));
    this.epoch = first.fleet_epoch;
    this.cursor = first.cursor;
    this.changed();
  }

  /** Applies one event; false when it belongs to another epoch or asks for a reset (fetch a new catalog). */
  apply(event: WireEvent): boolean {
    if (event.fleet_epoch !== this.epoch || event.type === "reset") return false;
    switch (event.type) {
      case "project_upserted":
        this.projects.set(event.project.project_id, event.project);
        break;
      case "project_removed":
        this.projects.delete(event.project_id);
        break;
      case "session_upserted":
        this.sessions.set(event.session.session_id, withHost(event.session));
        break;
      case "session_removed":
        this.sessions.delete(event.session_id);
        break;
      case "heartbeat":
        break;
    }
    this.cursor = event.cursor;
    if (event.type !== "heartbeat") this.changed();
    return true;
  }

  setFeed(feed: FeedState, problem: string | null = null): void {
    if (feed === this.feed && problem === this.problem) return;
    this.feed = feed;
    this.problem = problem;
    this.changed();
  }

  /** Sessions newest first (ids are time-sortable). */
  sessionList(): FleetSession[] {
    return [...this.sessions.values()].sort((a, b) => (a.session_id < b.session_id ? 1 : a.session_id > b.session_id ? -1 : 0));
  }

  /** Projects by path. */
  projectList(): FleetProject[] {
    return [...this.projects.values()].sort((a, b) => a.path.localeCompare(b.path));
  }
}

/** The last two segments of a project path (`/srv/work/acme/api` -> `acme/api`). */
export function shortPath(path: string): string {
  const parts = path.split("/").filter(Boolean);
  return parts.length <= 2 ? path : parts.slice(-2).join("/");
}
