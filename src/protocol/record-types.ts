// The record types of the journal: engine events are stored verbatim (so the conversation can be folded
// back from the journal); the daemon adds a few records of its own, named here.
import type { EngineEventType } from "./sync-record.ts";

/** Records written by the daemon, not the engine. */
export const DAEMON_RECORD_TYPES = ["session_state", "operation_result", "daemon_catalog_changed"] as const;

const DAEMON_TYPES: ReadonlySet<string> = new Set(DAEMON_RECORD_TYPES);

/** Every journal record that is not a daemon record is an engine event. */
export function isEngineRecordType(type: string): type is EngineEventType {
  return !DAEMON_TYPES.has(type);
}
