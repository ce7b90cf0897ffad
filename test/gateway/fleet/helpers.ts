// A started gateway whose fleet runs on a fake scheduler (tests fire observer rounds and heartbeats), a
// `machine` token, and rows inserted straight into the database the way the registries and the session
// supervisor write them (followed by their change signal).
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
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
  stop(): Promise<void>;
}

export interface SessionFields {
  projectId: string;
  state: string;
  port: number | null;
  sessionDir: string | null;
  daemonEpoch: string | null;
}

export async function startFleetGateway(limits: Partial<FleetLimits> = {}, options: { idleTimeoutSecs?: number } = {}): Promise<FleetGateway> {
  const gw = await startTestGateway("", options);
  const scheduler = new FakeScheduler();
  const fleet = installFleet(gw.ctx, { scheduler, limits });
  const token = (await gw.ctx.pats.create((await gw.ctx.principals.create("fleet-admin")).id, "fleet tests")).token;
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${gw.url}${path}`, { headers: { Authorization: `Bearer ${token}`, ...headers } });
  const now = () => gw.clock.now();
  gw.ctx.sqlite!.run("INSERT INTO configurations (name, format, created_at, updated_at) VALUES ('fleet-cfg', 'yaml', ?, ?)", [now(), now()]);
  const setSession = async (id: string, f: Partial<SessionFields>) => {
    const sets = Object.entries({ project_id: f.projectId, state: f.state, port: f.port, session_dir: f.sessionDir, daemon_epoch: f.daemonEpoch }).filter(([, v]) => v !== undefined);
    gw.ctx.sqlite!.run(`UPDATE sessions SET ${sets.map(([k]) => `${k} = ?`).join(", ")}, updated_at = ? WHERE id = ?`, [...sets.map(([, v]) => v as string | number | null), now(), id]);
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
      gw.ctx.sqlite!.run("INSERT INTO projects (id, path, config_name, registered_at, updated_at) VALUES (?, ?, 'fleet-cfg', ?, ?)", [id, path, now(), now()]);
      await gw.ctx.fleetChanges.touch({ kind: "project", id });
    },
    async addSession(id, f = {}) {
      gw.ctx.sqlite!.run(
        "INSERT INTO sessions (id, project_id, launch_mode, state, port, session_dir, daemon_epoch, created_at, updated_at) VALUES (?, ?, 'project_direct', ?, ?, ?, ?, ?, ?)",
        [id, f.projectId ?? "0000aaaa", f.state ?? "stopped", f.port ?? null, f.sessionDir ?? null, f.daemonEpoch ?? null, now(), now()],
      );
      await gw.ctx.fleetChanges.touch({ kind: "session", id });
    },
    setSession,
    async removeSession(id) {
      gw.ctx.sqlite!.run("DELETE FROM sessions WHERE id = ?", [id]);
      await gw.ctx.fleetChanges.touch({ kind: "session", id });
    },
    stop: () => gw.stop(),
  };
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
