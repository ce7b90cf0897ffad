// A new session record (POST /sessions): the project, the launch mode, for worktree_backed a git worktree
// on its own branch, and the session directory (the daemon's store, under the gateway's id). Nothing is
// left half-created: a failure removes the worktree and the directory again. The daemon is launched by the
// caller (launch-generation.ts).
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ProtocolError } from "../../protocol/errors.ts";
import { newId } from "../../util/ids.ts";
import { initSessionDir } from "../../daemon/store/index.ts";
import type { GatewayContext } from "../context.ts";
import { logEvent } from "../auth/failure-counts.ts";
import type { SessionParts } from "./endings.ts";
import type { SessionRow } from "./registry.ts";
import { LAUNCH_MODES, type LaunchMode } from "./transitions.ts";
import { assertOwned } from "./ownership.ts";
import { createWorktree, removeWorktree, worktreeBranch, WorktreeError } from "./worktree.ts";

/** What creating a session uses. */
export type CreateSessionDeps = Pick<GatewayContext, "clock" | "config" | "dataDir" | "logger"> & Pick<SessionParts, "store">;

/** Where the sessions' directories are. */
export function sessionsDir(dataDir: string): string {
  return join(dataDir, "sessions");
}

/**
 * The record in `starting`, owned by this host, its worktree and directory made; 422 for a bad mode or
 * project id, 404 for an unknown project, 409 for a project another host supervises (its directory is there).
 */
export async function createSession(deps: CreateSessionDeps, projectId: unknown, launchMode: unknown): Promise<SessionRow> {
  if (typeof launchMode !== "string" || !LAUNCH_MODES.includes(launchMode as LaunchMode)) {
    throw new ProtocolError("validation_failed", 422, `launch_mode must be one of ${LAUNCH_MODES.join(", ")} (got ${JSON.stringify(launchMode)?.slice(0, 40)})`);
  }
  if (typeof projectId !== "string") throw new ProtocolError("validation_failed", 422, "project_id must be a string");
  const project = await deps.store.project(projectId);
  if (!project) throw new ProtocolError("not_found", 404, `no project ${projectId.slice(0, 40)}`);
  assertOwned("project", project, deps.config.host_name);
  const id = newId("ses", deps.clock.now());
  const sessionDir = join(sessionsDir(deps.dataDir), id);
  let worktreePath: string | null = null;
  let branch: string | null = null;
  if (launchMode === "worktree_backed") {
    worktreePath = join(deps.dataDir, "worktrees", id);
    branch = worktreeBranch(id);
    mkdirSync(join(deps.dataDir, "worktrees"), { recursive: true, mode: 0o700 });
    try {
      createWorktree(project.path, worktreePath, branch);
    } catch (error) {
      if (error instanceof WorktreeError) throw new ProtocolError("validation_failed", 422, error.message);
      throw error;
    }
  }
  let row: SessionRow;
  try {
    mkdirSync(sessionDir, { recursive: true, mode: 0o700 });
    // The daemon's session id is the gateway's: one id for the same session everywhere.
    initSessionDir(sessionDir, id, { project: worktreePath ?? project.path }).close();
    row = await deps.store.insert({ id, projectId, launchMode: launchMode as LaunchMode, sessionDir, worktreePath, worktreeBranch: branch, ownerHost: deps.config.host_name });
  } catch (error) {
    // No half-created session: the worktree and directory go again.
    if (worktreePath) removeWorktree(project.path, worktreePath);
    rmSync(sessionDir, { recursive: true, force: true });
    throw error;
  }
  logEvent(deps.logger, "info", "session.created", { session: id, project: projectId, launch_mode: launchMode });
  return row;
}
