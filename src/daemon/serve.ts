// Starts a session daemon: opens the session, binds 127.0.0.1 (port 0 picks a free one), and when it is
// ready writes `daemon.json` ({"port","pid","epoch"}, the same line the CLI prints) into the session dir.
import type { Server } from "bun";
import { join } from "node:path";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { buildDaemonApp } from "./app.ts";
import { Daemon, type DaemonConfig } from "./daemon.ts";
import { createDaemonFetch, json, type DaemonLogger } from "./edge.ts";
import { traceRequests } from "../telemetry/http-spans.ts";
import { logRequests, type LeveledLogger } from "./log.ts";
import type { Tracer } from "../telemetry/tracer.ts";

export const DAEMON_JSON = "daemon.json";

export interface StartDaemonOptions extends DaemonConfig {
  /** The bearer token; null makes every request a 401 (the CLI refuses to start without one). */
  credential: string | null;
  port?: number;
  logger?: DaemonLogger;
  onExitRequested?: () => void;
  reloadCatalog?: (daemon: Daemon) => void;
  /** A server span per request (src/telemetry); absent: none. */
  tracer?: Tracer;
}

export interface ReadyLine {
  port: number;
  pid: number;
  epoch: string;
}

export interface RunningDaemon {
  daemon: Daemon;
  server: Server<unknown>;
  url: string;
  ready: ReadyLine;
  /** Stops listening and releases the session (a running session stays resumable). */
  stop(): Promise<void>;
}

export const silentDaemonLogger: DaemonLogger = { error: () => {} };

export async function startDaemon(options: StartDaemonOptions): Promise<RunningDaemon> {
  const daemon = await Daemon.open(options);
  const logger = options.logger ?? silentDaemonLogger;
  const app = buildDaemonApp(daemon, {
    logger,
    secrets: options.credential ? [options.credential] : [],
    onExitRequested: options.onExitRequested,
    reloadCatalog: options.reloadCatalog ? () => options.reloadCatalog!(daemon) : undefined,
  });
  let server: Server<unknown>;
  try {
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: options.port ?? 0,
      fetch: traceRequests(options.tracer, "enabled" in logger ? logRequests(logger as LeveledLogger, createDaemonFetch(options.credential, app, logger)) : createDaemonFetch(options.credential, app, logger)),
      error: () => json(500, { code: "internal_error", error: "internal_error" }),
      idleTimeout: 30,
      // The edge enforces DAEMON_BODY_LIMIT with a JSON 413; the server's own refusal has no body.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
      development: false,
      // Production mode turns SO_REUSEPORT on: a second server on a port in use would share it silently.
      reusePort: false,
    });
  } catch (error) {
    await daemon.close();
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") throw new Error(`cannot listen on 127.0.0.1:${options.port}: the port is in use (use --port 0 for a free one)`);
    throw error;
  }
  const ready: ReadyLine = { port: server.port!, pid: process.pid, epoch: daemon.epoch };
  writeFileAtomic(join(daemon.store.dir, DAEMON_JSON), `${JSON.stringify(ready)}\n`, 0o600);
  let stopped = false;
  return {
    daemon,
    server,
    url: `http://127.0.0.1:${server.port}`,
    ready,
    async stop() {
      if (stopped) return;
      stopped = true;
      // Streams end first, so that a graceful stop only waits for short requests (such as the stop request itself).
      daemon.hub.endStreams();
      await Promise.race([server.stop(false), Bun.sleep(2000)]);
      server.stop(true);
      await daemon.close();
    },
  };
}
