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

const SessionState = Type.Union(["starting", "running", "stopping", "stopped", "failed"].map((s) => Type.Literal(s)));

export const FleetSessionSchema = Type.Object({
  session_id: S,
  project_id: S,
  state: SessionState,
  title: Type.Union([S, Type.Null()]),
  updated_at: Type.String({ format: "date-time" }),
  summary: Type.Union([SyncStatusRecord, Type.Null()], { description: "Last observed GET /sync/summary of a running session." }),
  observed_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
  stale: Type.Boolean({ description: "The observation is older than 15 seconds: not a fresh assertion." }),
});

export const FleetProjectSchema = Type.Object({ project_id: S, name: S, updated_at: Type.String({ format: "date-time" }) });

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

export function fleetEventJsonSchema(): Record<string, unknown> {
  return { $schema: "https://json-schema.org/draft/2020-12/schema", ...JSON.parse(JSON.stringify(FleetEventV1)) };
}
