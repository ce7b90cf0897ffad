// Starts the gateway: paths, database, pepper, TLS, auth, then the HTTP(S) listener.
import { frontHandler } from "../hosts/front-store.ts";
import type { Server } from "bun";
import { systemClock, type Clock } from "../../util/clock.ts";
import { resolveDataDir } from "../config/load.ts";
import type { GatewayConfig } from "../config/types.ts";
import { createGatewayContext, silentLogger, type GatewayContext, type Logger } from "../context.ts";
import { pamUnavailableReason, WorkerPam, type PamAuthenticator } from "../auth/pam.ts";
import { assertListenSecure, resolveTls, type TlsMaterial } from "../net/tls.ts";
import { buildGatewayApp, type RouteGroup } from "./app.ts";
import { createFetchHandler } from "./edge.ts";
import { jsonResponse } from "./errors.ts";
import { issuerUrl } from "../oauth/metadata.ts";
import { API_BODY_LIMIT, withSecurityHeaders } from "./headers.ts";
import { DEFAULT_BODY_TOTAL_MS } from "./body.ts";
import { traceRequests } from "../../telemetry/http-spans.ts";
import type { Tracer } from "../../telemetry/tracer.ts";
import { loopbackUrl } from "../sessions/listener.ts";
import { hostPolicy, type HostPolicy } from "./request-target.ts";
import { acquireServeLock } from "./serve-lock.ts";
import { stopFleet } from "../fleet/service.ts";
import { HOST_CLOSE } from "../hosts/connect-route.ts";
import { muxWebSocket } from "../hosts/mux/bun-server.ts";
import { mkdirSync } from "node:fs";

/** Seconds a connection may sit idle (also bounds slow clients trickling a request). */
export const IDLE_TIMEOUT_SECS = 15;

export interface StartOptions {
  config: GatewayConfig;
  env: Record<string, string | undefined>;
  clock?: Clock;
  logger?: Logger;
  /** Override the PAM backend (tests); null disables PAM. Default: libpam in workers where supported. */
  pam?: PamAuthenticator | null;
  groups?: RouteGroup[];
  /** Seconds an idle connection is kept (default IDLE_TIMEOUT_SECS; tests shorten it). */
  idleTimeoutSecs?: number;
  /** Milliseconds a whole request body may take (default DEFAULT_BODY_TOTAL_MS; tests shorten it). */
  bodyTotalMs?: number;
  /** A server span per request (src/telemetry); absent: none. */
  tracer?: Tracer;
  /** How to run `agent daemon` (default: this binary); tests that need it from the first request set it here. */
  daemonCommand?: string[];
}

export interface RunningGateway {
  ctx: GatewayContext;
  server: Server<unknown>;
  url: string;
  tls: TlsMaterial | null;
  pamNote?: string;
  stop(): Promise<void>;
}

export async function startGateway(options: StartOptions): Promise<RunningGateway> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const dataDir = resolveDataDir(config, options.env);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lock = acquireServeLock(dataDir);
  let tls: TlsMaterial | null;
  let ctx: GatewayContext | undefined;
  let pam: PamAuthenticator | undefined;
  let pamNote: string | undefined;
  try {
    pamNote = options.pam === undefined ? pamUnavailableReason() : undefined;
    pam = options.pam === undefined ? (pamNote ? undefined : new WorkerPam()) : (options.pam ?? undefined);
    // The database and the pepper come first: on PostgreSQL the replicas' TLS identity is stored there.
    ctx = await createGatewayContext({ config, env: options.env, clock, logger, dataDir, pam });
    const shared = ctx.database.engine === "postgresql" ? { db: ctx.db, pepper: ctx.pepper } : undefined;
    tls = await resolveTls(config, dataDir, new Date(clock.now()), undefined, shared);
    assertListenSecure(config.listen.address, tls);
    ctx.tls = tls !== null;
  } catch (error) {
    pam?.close();
    await ctx?.db.close();
    lock.release();
    throw error;
  }
  const idleSecs = options.idleTimeoutSecs ?? IDLE_TIMEOUT_SECS;
  let server: Server<unknown>;
  let fetchHandler: (request: Request, server: Server<unknown>) => Response | Promise<Response>;
  let hosts: HostPolicy | undefined;
  if (options.daemonCommand) ctx.sessions.daemonCommand = options.daemonCommand;
  try {
    const app = buildGatewayApp(ctx, options.groups);
    // The Host names served are known once the port is (listen.port 0 picks one): no request is handled
    // before Bun.serve returns and the policy is set below.
    fetchHandler = traceRequests(options.tracer, createFetchHandler(ctx, app, () => hosts, { idleMs: idleSecs * 1000, totalMs: options.bodyTotalMs ?? DEFAULT_BODY_TOTAL_MS }));
    server = Bun.serve({
      hostname: config.listen.address,
      port: config.listen.port,
      fetch: fetchHandler,
      // Host agents' connections (GET /api/v1/hosts/connect, upgraded at the edge).
      websocket: muxWebSocket,
      error: () => withSecurityHeaders(jsonResponse(500, { error: "internal_error" }), tls !== null),
      tls: tls ? { cert: tls.cert, key: tls.key } : undefined,
      idleTimeout: idleSecs,
      // The edge enforces each route's limit with a JSON 413 (body.ts); this only bounds what Bun buffers.
      maxRequestBodySize: API_BODY_LIMIT * 2,
      development: false,
      // Production mode turns SO_REUSEPORT on: a second server on a port in use would share it silently.
      reusePort: false,
    });
  } catch (error) {
    pam?.close();
    // buildGatewayApp started the fleet: it stops before the database it reads closes.
    stopFleet(ctx);
    await ctx.db.close();
    lock.release();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") throw new Error(`cannot listen on ${config.listen.address}:${config.listen.port}: the port is in use (set listen.port)`);
    if (code === "EADDRNOTAVAIL") throw new Error(`cannot listen on ${config.listen.address}: no such address on this machine (check listen.address)`);
    if (code === "EACCES") throw new Error(`cannot listen on port ${config.listen.port}: permission denied`);
    throw error;
  }
  hosts = hostPolicy({ listenAddress: config.listen.address, port: server.port!, tls: tls !== null, externalUrl: config.auth.external_url });
  const host = config.listen.address.includes(":") ? `[${config.listen.address}]` : config.listen.address;
  const url = `${tls ? "https" : "http"}://${host}:${server.port}`;
  ctx.issuer = issuerUrl(config, server.port!, tls !== null);
  // Each joined host's connection is served the front's side of the host protocol: the session store, and
  // its daemons' services requests through this front's own edge (hosts/front-store.ts).
  const served = server;
  ctx.hostLinks.onChange((hostName, connection) => connection?.serve(frontHandler(ctx, hostName, url, (request) => Promise.resolve(fetchHandler(request, served)))));
  // Daemons reach the gateway on loopback; then sessions left by an earlier run are re-adopted or failed.
  // Requests are served meanwhile (sign-ins, listings, host agents, daemons' services), but creates and
  // operations on sessions wait until it is done: reconcile() begins that wait before any request can run
  // (no await between Bun.serve and here), so no session a client creates or resumes is judged by it
  // (decisions-gateway-sessions 34).
  ctx.sessions.setListener(loopbackUrl(config.listen.address, server.port!, tls !== null), tls?.fingerprint ?? null);
  await ctx.sessions.reconcile();
  ctx.presence.start();
  let stopped = false;
  return {
    ctx,
    server,
    url,
    tls,
    pamNote,
    async stop() {
      if (stopped) return;
      stopped = true;
      stopFleet(ctx);
      ctx.presence.stop();
      // Before the streams: their revocation signals would close host connections as revoked.
      ctx.hostLinks.closeAll(HOST_CLOSE.GOING_AWAY, "the front is stopping");
      ctx.streams.closeAll();
      ctx.sessions.close();
      ctx.upstream.close();
      await server.stop();
      pam?.close();
      await ctx.db.close();
      lock.release();
    },
  };
}
