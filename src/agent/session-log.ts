// The session log: one line per tool-server log entry (child stderr, manager notes), in the session
// directory. Without a session directory (tests, one-off hosts) entries are dropped.
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { McpLogEntry } from "../mcp/index.ts";

export const SESSION_LOG_FILE = "session.log";

export function sessionLogSink(sessionDir: string | null | undefined, now: () => number, scrub: (text: string) => string): (entry: McpLogEntry) => void {
  if (!sessionDir) return () => {};
  const path = join(sessionDir, SESSION_LOG_FILE);
  return (entry) => {
    const line = `${new Date(now()).toISOString()} ${entry.level} mcp:${entry.server} ${entry.source}: ${scrub(entry.message)}\n`;
    try {
      // `agent exec` makes its session dir after the session: a server may write before that.
      mkdirSync(sessionDir, { recursive: true, mode: 0o700 });
      appendFileSync(path, line, { mode: 0o600 });
    } catch {
      // A log line is never worth failing the session for.
    }
  };
}
