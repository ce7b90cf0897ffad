// Deleting a session (DELETE /sessions/:id): cleanup_pending, the daemon ended (the live one, else the
// process the record names), the credential invalidated, the worktree and the session directory removed,
// reaped, the row deleted. A cleanup step that fails leaves the record in cleanup_pending with a 503;
// DELETE again retries it.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { ProtocolError } from "../../protocol/errors.ts";
import type { GatewayContext } from "../context.ts";
import { sessionsDir } from "./create-session.ts";
import { removeBootstrap, type EndingDeps } from "./endings.ts";
import { recordedDaemon } from "./live-daemons.ts";
import type { SessionRow } from "./registry.ts";
import { terminateDaemon } from "./terminate.ts";
import { sessionTimeouts } from "./timeouts.ts";
import { removeWorktree } from "./worktree.ts";

/** What deleting a session uses. */
export type DeleteSessionDeps = EndingDeps & Pick<GatewayContext, "dataDir" | "logger">;

/** Deletes the session `row` (read by the caller, which serializes operations on it). */
export async function deleteSession(deps: DeleteSessionDeps, row: SessionRow): Promise<void> {
  const { id } = row;
  const stopMs = sessionTimeouts(deps.config).stop;
  if (row.state !== "cleanup_pending") await deps.store.transition(id, [row.state], "cleanup_pending", "delete");
  const daemon = deps.live.get(id);
  deps.live.forget(id);
  if (daemon) await terminateDaemon(daemon, stopMs);
  else {
    const recorded = recordedDaemon(row);
    if (recorded) await terminateDaemon(recorded, stopMs);
  }
  await deps.store.invalidateCredentials(id, "session_deleted");
  await removeBootstrap(deps.store, id);
  if (row.worktreePath) {
    const project = await deps.store.project(row.projectId);
    try {
      removeWorktree(project?.path ?? row.worktreePath, row.worktreePath);
    } catch (error) {
      // The record stays in cleanup_pending; DELETE again retries the cleanup.
      throw new ProtocolError("unavailable", 503, `session ${id} is cleanup_pending: ${(error as Error).message}`);
    }
  }
  if (row.sessionDir) removeSessionDir(deps, id, row.sessionDir);
  await deps.store.transition(id, ["cleanup_pending"], "reaped", "delete");
  await deps.store.remove(id);
}

/**
 * The session's directory goes with its record: transcript, store, logs and credential.json (a kept
 * directory would be unreachable through any route, and the credential a secret left behind). Also a
 * layout migration's backup, staging and journal beside it. Only ever a directory under sessions/.
 */
function removeSessionDir(deps: Pick<GatewayContext, "dataDir" | "logger">, id: string, sessionDir: string): void {
  const root = sessionsDir(deps.dataDir);
  if (sessionDir !== join(root, id)) {
    deps.logger.warn(`session ${id}: its directory ${sessionDir} is not ${join(root, id)}; left in place`);
    return;
  }
  try {
    for (const path of [sessionDir, join(root, `.${id}.layout-1.backup`), join(root, `.${id}.layout-2.staging`), join(root, `.${id}.migration.json`)]) rmSync(path, { recursive: true, force: true });
  } catch (error) {
    // The record stays in cleanup_pending; DELETE again retries the cleanup.
    throw new ProtocolError("unavailable", 503, `session ${id} is cleanup_pending: its directory could not be removed (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
}
