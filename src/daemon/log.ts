// The daemon's log (`daemon.log` in the session dir): one line per event, `<ISO time> <level> <message>`,
// secrets scrubbed, filtered by `daemon.log_level` (error < warn < info < debug < trace; default info).
// debug adds a line per request (method, path, status, milliseconds; never a query string or a body).
import { appendFileSync } from "node:fs";
import type { LOG_LEVELS } from "../config/schema/daemon.ts";
import { redactText } from "../util/redact.ts";
import type { DaemonLogger } from "./edge.ts";

export type LogLevel = (typeof LOG_LEVELS)[number];

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3, trace: 4 };

export const DEFAULT_LOG_LEVEL: LogLevel = "info";

export interface LeveledLogger extends Required<DaemonLogger> {
  level: LogLevel;
  enabled(level: LogLevel): boolean;
}

export function fileLogger(file: string, secrets: () => readonly string[], level: LogLevel = DEFAULT_LOG_LEVEL): LeveledLogger {
  const logger: LeveledLogger = {
    level,
    enabled: (l) => RANK[l] <= RANK[logger.level],
    error: (m) => write("error", m),
    warn: (m) => write("warn", m),
    info: (m) => write("info", m),
    debug: (m) => write("debug", m),
  };
  function write(l: LogLevel, message: string): void {
    if (!logger.enabled(l)) return;
    try {
      appendFileSync(file, `${new Date().toISOString()} ${l} ${redactText(message.replace(/[\r\n]+/g, " "), secrets())}\n`, { mode: 0o600 });
    } catch {
      // The log is best effort (a full disk must not stop the daemon); the daemon keeps serving.
    }
  }
  return logger;
}

/** Wraps a fetch handler with one debug line per request (only when debug is on). */
export function logRequests<S>(logger: LeveledLogger, handler: (request: Request, server: S) => Promise<Response>): (request: Request, server: S) => Promise<Response> {
  return async (request, server) => {
    if (!logger.enabled("debug")) return handler(request, server);
    const started = performance.now();
    const response = await handler(request, server);
    logger.debug(`${request.method} ${new URL(request.url).pathname} ${response.status} ${(performance.now() - started).toFixed(1)}ms`);
    return response;
  };
}
