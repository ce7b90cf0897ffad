// Reads projects and sessions from the gateway database as the fleet shows them. Session rows carry what
// the observer and stopped history need besides the public fields (port, session dir).
import type { Database } from "bun:sqlite";
import type { FleetProject } from "../../protocol/fleet-event.ts";
import { isoAt } from "../../util/clock.ts";

export interface SessionRow {
  id: string;
  projectId: string;
  launchMode: "project_direct" | "worktree_backed";
  state: "starting" | "running" | "stopped" | "failed" | "cleanup_pending" | "reaped";
  daemonEpoch: string | null;
  port: number | null;
  sessionDir: string | null;
  updatedAt: number;
}

interface RawProject {
  id: string;
  path: string;
  config_name: string;
  registered_at: number;
  updated_at: number;
}

const SESSION_COLUMNS = "id, project_id AS projectId, launch_mode AS launchMode, state, daemon_epoch AS daemonEpoch, port, session_dir AS sessionDir, updated_at AS updatedAt";
const PROJECT_COLUMNS = "id, path, config_name, registered_at, updated_at";

export class FleetRows {
  constructor(private readonly sqlite: Database) {}

  project(id: string): FleetProject | null {
    const row = this.sqlite.query(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = ?`).get(id) as RawProject | null;
    return row ? toProject(row) : null;
  }

  projects(): FleetProject[] {
    return (this.sqlite.query(`SELECT ${PROJECT_COLUMNS} FROM projects ORDER BY id`).all() as RawProject[]).map(toProject);
  }

  session(id: string): SessionRow | null {
    return this.sqlite.query(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ?`).get(id) as SessionRow | null;
  }

  /** Every session that the fleet shows (a `reaped` row is about to be deleted and is not shown). */
  sessions(): SessionRow[] {
    return this.sqlite.query(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE state != 'reaped' ORDER BY id`).all() as SessionRow[];
  }

  running(): SessionRow[] {
    return this.sqlite.query(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE state = 'running' ORDER BY id`).all() as SessionRow[];
  }
}

function toProject(row: RawProject): FleetProject {
  return { project_id: row.id, path: row.path, config_name: row.config_name, registered_at: isoAt(row.registered_at), updated_at: isoAt(row.updated_at) };
}
