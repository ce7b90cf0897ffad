// FleetEventV1: the gateway's fleet event stream (client-protocol.md, Fleet routes), defined here with
// the other wire contracts so that the gateway (issue 10) and clients share one source.
import { type Static, type TProperties, Type } from "@sinclair/typebox";
import { SyncStatusRecord } from "./sync-shapes.ts";

const S = Type.String();

const Header = {
  version: Type.Literal(1),
  fleet_epoch: S,
  cursor: Type.String({ description: "Opaque fleet cursor after this event; heartbeats repeat the current one." }),
  at: Type.String({ format: "date-time" }),
};

function variant<T extends string, P extends TProperties>(type: T, description: string, fields: P) {
  return Type.Object({ ...Header, type: Type.Literal(type), ...fields }, { description });
}

/** Gateway session states (gateway.md, States); `reaped` rows leave the fleet (session_removed). */
const SessionState = Type.Union([Type.Literal("starting"), Type.Literal("running"), Type.Literal("stopped"), Type.Literal("failed"), Type.Literal("cleanup_pending")]);
const DateTime = Type.String({ format: "date-time" });

export const FleetSessionSchema = Type.Object({
  session_id: S,
  project_id: S,
  launch_mode: Type.Union([Type.Literal("project_direct"), Type.Literal("worktree_backed")]),
  state: SessionState,
  daemon_epoch: Type.Union([S, Type.Null()], { description: "Epoch of the session's current or last daemon." }),
  updated_at: DateTime,
  summary: Type.Union([SyncStatusRecord, Type.Null()], { description: "Last observed GET /sync/summary of a running session; null when not running or not observed yet." }),
  observed_at: Type.Union([DateTime, Type.Null()]),
  stale: Type.Boolean({ description: "A running session whose last observation is older than 15 seconds (or missing), or whose host is offline: not a fresh assertion." }),
  owner_host: Type.Union([S, Type.Null()], { description: "The host_name of the host that supervises the session (a front or a joined host agent); null for a row from before hosts were recorded, which any front supervises." }),
  host_online: Type.Boolean({ description: "Whether the session's host is online (a gateway front holds its connection). An offline host's running session is stale, never failed: its daemon may still run." }),
});
export type FleetSession = Static<typeof FleetSessionSchema>;

export const FleetProjectSchema = Type.Object({ project_id: S, path: S, config_name: S, registered_at: DateTime, updated_at: DateTime });
export type FleetProject = Static<typeof FleetProjectSchema>;

export const FleetEventV1 = Type.Union(
  [
    variant("project_upserted", "A project was added or changed.", { project: FleetProjectSchema }),
    variant("project_removed", "A project was removed.", { project_id: S }),
    variant("session_upserted", "A session was added or its state or summary changed.", { session: FleetSessionSchema }),
    variant("session_removed", "A session was removed from the fleet.", { session_id: S }),
    variant("heartbeat", "Sent every 15 seconds: tells a quiet fleet from a stale connection.", { interval_seconds: Type.Literal(15) }),
    variant("reset", "The stream cannot continue safely (reset_required): discard the cursor and fetch a new catalog.", { code: Type.Literal("reset_required") }),
  ],
  { title: "FleetEventV1" },
);
export type FleetEvent = Static<typeof FleetEventV1>;

/** A fleet error body (FleetErrorV1): `{"code"}`, with a message except for `invalid_query`. */
export const FleetErrorV1 = Type.Object({ code: S, message: Type.Optional(S) }, { title: "FleetErrorV1" });

/** One page of `GET /api/v1/catalog` (paging names: docs/decisions-fleet.md). */
export const FleetCatalogPage = Type.Object({
  version: Type.Literal(1),
  fleet_epoch: S,
  cursor: Type.String({ description: "Fleet cursor of the snapshot: GET /api/v1/events?after=<cursor> continues from it." }),
  snapshot: Type.String({ description: "Binds later pages to this catalog: GET /api/v1/catalog?snapshot=<token>&page=<n>." }),
  expires_at: DateTime,
  features: Type.Array(S),
  page: Type.Object({
    index: Type.Integer({ minimum: 0 }),
    count: Type.Integer({ minimum: 1 }),
    next: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: "Index of the next page; null on the last one." }),
    entries: Type.Integer({ minimum: 0 }),
    total_projects: Type.Integer({ minimum: 0 }),
    total_sessions: Type.Integer({ minimum: 0 }),
  }),
  projects: Type.Array(FleetProjectSchema),
  sessions: Type.Array(FleetSessionSchema),
});

export function fleetEventJsonSchema(): Record<string, unknown> {
  return { $schema: "https://json-schema.org/draft/2020-12/schema", ...JSON.parse(JSON.stringify(FleetEventV1)) };
}
