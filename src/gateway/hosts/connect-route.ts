// GET /api/v1/hosts/connect: where a host agent opens its one connection to this front (docs/gateway-hosts.md).
// The edge has verified its host credential (`hst_`, the only family this route takes) before anything here
// runs; a request that is not a WebSocket upgrade offering the `agent-host.1` subprotocol is refused without
// an upgrade. The accepted socket runs a MuxConnection; the host's HELLO must name the credential's host.
// One connection per host and front: a newer one replaces the older. The connection closes when its
// credential is revoked (OpenStreams, as for every long-lived response) and when the front stops.
import type { Server } from "bun";
import type { AuthResult } from "../auth/bearer.ts";
import { logEvent } from "../auth/failure-counts.ts";
import type { GatewayContext } from "../context.ts";
import { jsonResponse } from "../server/errors.ts";
import type { TrackedStream } from "../server/streams.ts";
import type { MuxConnection } from "./mux/connection.ts";
import { upgradeToMux, type MuxSocketData } from "./mux/bun-server.ts";

/** Close codes of the connect route (the mux's own are in mux/frames.ts CLOSE). */
export const HOST_CLOSE = {
  /** HELLO named another host than the credential's, or this front's own host. */
  WRONG_HOST: 4004,
  /** A newer connection of the same host reached this front. */
  REPLACED: 4005,
  /** The credential the connection was opened with was revoked. */
  REVOKED: 4006,
  /** The front stops. */
  GOING_AWAY: 1001,
} as const;

export type ConnectDeps = Pick<GatewayContext, "config" | "clock" | "logger" | "streams" | "hostLinks" | "presence">;

/**
 * Refuses what is not a host's WebSocket upgrade (the mux's checks: the subprotocol, the upgrade itself);
 * upgrades the rest and admits the connection once HELLO is exchanged. `auth` is the verified `hst_` credential.
 */
export function acceptHostConnect(deps: ConnectDeps, request: Request, auth: AuthResult, server: Server<unknown> | undefined): Response {
  if (request.method !== "GET") return jsonResponse(405, { error: "method_not_allowed", message: "the host connect route is GET with a WebSocket upgrade" }, { Allow: "GET" });
  if (!server || request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
    return jsonResponse(426, { error: "upgrade_required", message: "the host connect route accepts only a WebSocket upgrade (subprotocol agent-host.1)" }, { Upgrade: "websocket" });
  }
  const hostName = auth.hostName!;
  const upgraded = upgradeToMux(server as Server<MuxSocketData>, request, { side: "front", name: deps.config.host_name }, {
    onHandlerError: (error, req) => logEvent(deps.logger, "warn", "host.handler_failed", { host: hostName, path: new URL(req.url).pathname, error: error instanceof Error ? error.message : String(error) }),
  });
  if (upgraded instanceof Response) return upgraded;
  const tracked = deps.streams.track(auth);
  upgraded.then(
    (connection) => admit(deps, connection, auth, tracked),
    (error) => {
      // No common version (closed with 4001 naming both ranges), or the socket went first.
      tracked.release();
      logEvent(deps.logger, "warn", "host.refused", { host: hostName, credential: auth.credentialId, reason: error instanceof Error ? error.message : String(error) });
    },
  );
  // Bun answers 101 itself once upgraded and ignores what the handler returns.
  return new Response(null, { status: 200 });
}

function admit(deps: ConnectDeps, connection: MuxConnection, auth: AuthResult, tracked: TrackedStream): void {
  const hostName = auth.hostName!;
  const refuse = (code: number, reason: string) => {
    tracked.release();
    logEvent(deps.logger, "warn", "host.refused", { host: hostName, credential: auth.credentialId, reason });
    connection.close(code, reason);
  };
  if (connection.peer.name !== hostName) return refuse(HOST_CLOSE.WRONG_HOST, `this credential is for host ${hostName}, not ${connection.peer.name}`.slice(0, 120));
  if (hostName === deps.config.host_name) return refuse(HOST_CLOSE.WRONG_HOST, `host ${hostName} is this front itself`.slice(0, 120));
  if (tracked.signal.aborted) return refuse(HOST_CLOSE.REVOKED, "the host credential was revoked");
  tracked.signal.addEventListener("abort", () => connection.close(HOST_CLOSE.REVOKED, "the host credential was revoked"), { once: true });
  const previous = deps.hostLinks.add({ hostName, connection, credentialId: auth.credentialId, since: deps.clock.now() });
  previous?.connection.close(HOST_CLOSE.REPLACED, "replaced by a newer connection of the same host");
  void connection.closed.then(({ code, reason }) => {
    tracked.release();
    deps.hostLinks.remove(hostName, connection);
    logEvent(deps.logger, "info", "host.disconnected", { host: hostName, code, reason });
  });
  logEvent(deps.logger, "info", "host.connected", { host: hostName, credential: auth.credentialId, protocol: connection.protocol, agent_version: connection.peer.agent_version });
  deps.presence.announce(hostName, { agentVersion: connection.peer.agent_version, protocol: connection.protocol }).catch((error) => {
    // The periodic push records it; until then the host reads as offline.
    logEvent(deps.logger, "warn", "host.presence_failed", { host: hostName, error: error instanceof Error ? error.message : String(error) });
  });
}
