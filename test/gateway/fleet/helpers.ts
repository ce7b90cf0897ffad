// A started gateway whose fleet runs on a fake scheduler (tests fire observer rounds and heartbeats), a
// `machine` token, and rows inserted straight into the database the way the registries and the session
// supervisor write them (followed by their change signal), on SQLite or PostgreSQL.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installFleet, type FleetService } from "../../../src/gateway/fleet/service.ts";
import type { FleetLimits } from "../../../src/gateway/fleet/limits.ts";
import type { Scheduler } from "../../../src/gateway/fleet/scheduler.ts";
import { startTestGateway, type TestGateway } from "../helpers.ts";
import { readSse, type SseEvent } from "../../daemon/harness.ts";

export class FakeScheduler implements Scheduler {
  private readonly jobs = new Set<{ ms: number; fn: () => void }>();
  every(ms: number, fn: () => void): () => void {
    const job = { ms, fn };
    this.jobs.add(job);
    return () => this.jobs.delete(job);
  }
  /** Runs every job of this period once. */
  fire(ms: number): void {
    for (const job of [...this.jobs]) if (job.ms === ms) job.fn();
  }
  get size(): number {
    return this.jobs.size;
  }
}

export interface FleetGateway {
  gw: TestGateway;
  fleet: FleetService;
  scheduler: FakeScheduler;
  token: string;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  json(path: string): Promise<{ status: number; body: any; text: string }>;
  addProject(id: string, path?: string): Promise<void>;
  addSession(id: string, fields?: Partial<SessionFields>): Promise<void>;
  setSession(id: string, fields: Partial<SessionFields>): Promise<void>;
  removeSession(id: string): Promise<void>;
  removeProject(id: string): Promise<void>;
  stop(): Promise<void>;
}

export interface SessionFields {
  projectId: string;
  state: "starting" | "running" | "stopped" | "failed" | "cleanup_pending" | "reaped";
  port: number | null;
  sessionDir: string | null;
  daemonEpoch: string | null;
  ownerHost: string | null;
}

export interface FleetGatewayOptions {
  idleTimeoutSecs?: number;
  /** A PostgreSQL URL shared with other gateways (replicas). */
  database?: string;
  /** YAML appended to the gateway config (host_name). */
  extra?: string;
  /** YAML lines under auth.password (a shared pepper file: sharedPepper()). */
  auth?: string;
  /** The machine-scoped token's principal name (replicas share one database: one name each). */
  principal?: string;
}

/**
 * A gateway with its fleet on a fake scheduler. Rows are written through the database handle, on either
 * dialect, each followed by its change signal as the registries do.
 */
export async function startFleetGateway(limits: Partial<FleetLimits> = {}, options: FleetGatewayOptions = {}): Promise<FleetGateway> {
  const gw = await startTestGateway(options.extra ?? "", { idleTimeoutSecs: options.idleTimeoutSecs, database: options.database, auth: options.auth });
  const scheduler = new FakeScheduler();
  const fleet = installFleet(gw.ctx, { scheduler, limits });
  await fleet.ready;
  const token = (await gw.ctx.pats.create((await gw.ctx.principals.create(options.principal ?? "fleet-admin")).id, "fleet tests")).token;
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${gw.url}${path}`, { headers: { Authorization: `Bearer ${token}`, ...headers } });
  const now = () => gw.clock.now();
  const { db } = gw.ctx;
  const { configurations, projects, sessions } = db.t;
  await db.insert(configurations).values({ name: "fleet-cfg", format: "yaml", createdAt: now(), updatedAt: now() }).onConflictDoNothing();
  const setSession = async (id: string, f: Partial<SessionFields>) => {
    await db.update(sessions).set({ ...f, updatedAt: now() }).where(eq(sessions.id, id));
    await gw.ctx.fleetChanges.touch({ kind: "session", id });
  };
  return {
    gw,
    fleet,
    scheduler,
    token,
    get,
    async json(path) {
      const res = await get(path);
      const text = await res.text();
      return { status: res.status, text, body: text ? JSON.parse(text) : null };
    },
    async addProject(id, path = `/srv/projects/${id}`) {
      await db.insert(projects).values({ id, path, configName: "fleet-cfg", registeredAt: now(), updatedAt: now() });
      await gw.ctx.fleetChanges.touch({ kind: "project", id });
    },
    async addSession(id, f = {}) {
      await db.insert(sessions).values({
        id,
        projectId: f.projectId ?? "0000aaaa",
        launchMode: "project_direct",
        state: f.state ?? "stopped",
        port: f.port ?? null,
        sessionDir: f.sessionDir ?? null,
        daemonEpoch: f.daemonEpoch ?? null,
        ownerHost: f.ownerHost ?? null,
        createdAt: now(),
        updatedAt: now(),
      });
      await gw.ctx.fleetChanges.touch({ kind: "session", id });
    },
    setSession,
    async removeSession(id) {
      await db.delete(sessions).where(eq(sessions.id, id));
      await gw.ctx.fleetChanges.touch({ kind: "session", id });
    },
    async removeProject(id) {
      await db.delete(projects).where(eq(projects.id, id));
      await gw.ctx.fleetChanges.touch({ kind: "project", id });
    },
    stop: () => gw.stop(),
  };
}

/** A pepper file for gateways that must verify each other's tokens; returns the auth.password lines naming it. */
export function sharedPepper(): string {
  const file = join(mkdtempSync(join(tmpdir(), "fleet-pepper-")), "pepper");
  writeFileSync(file, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600 });
  return `    pepper_file: ${file}\n`;
}

/** A session dir holding a daemon credential the way the supervisor writes it (dir 0700, file 0600). */
export function credentialDir(token: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), "fleet-session-")), "session");
  mkdirSync(dir, { mode: 0o700 });
  chmodSync(dir, 0o700);
  writeFileSync(join(dir, "credential.json"), JSON.stringify({ token }), { mode: 0o600 });
  return dir;
}

/** Parses an SSE body into events (id + parsed data), stopping when `enough` says so. */
export async function readEvents(res: Response, enough: (events: { id?: string; data: any }[]) => boolean): Promise<{ id?: string; data: any }[]> {
  const parsed: { id?: string; data: any }[] = [];
  let seen = 0;
  const parse = (events: SseEvent[]) => {
    for (; seen < events.length; seen++) {
      const e = events[seen]!;
      if (e.event !== "comment" && e.data) parsed.push({ id: e.id, data: JSON.parse(e.data) });
    }
    return parsed;
  };
  parse(await readSse(res, (events) => enough(parse(events))));
  return parsed;
}
