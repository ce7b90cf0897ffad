// How the fleet reaches a running session's daemon: the loopback port the supervisor records in the
// sessions row and the daemon credential (`credential.json`) in the session dir. Kept in this one
// function so the supervisor's layout is read in one place.
import { join } from "node:path";
import { CREDENTIAL_FILE, loadCredential } from "../../daemon/credential.ts";
import type { SessionRow } from "./rows.ts";

export interface DaemonTarget {
  url: string;
  token: string;
}

/** Null when the row does not say where the daemon is or its credential cannot be loaded. */
export function daemonTarget(row: SessionRow): DaemonTarget | null {
  if (!row.port || !row.sessionDir) return null;
  try {
    return { url: `http://127.0.0.1:${row.port}`, token: loadCredential(join(row.sessionDir, CREDENTIAL_FILE)) };
  } catch {
    return null;
  }
}
