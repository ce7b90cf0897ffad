// On PostgreSQL every insert into fleet_events is announced on the channel `agent_gateway_fleet` (a
// statement trigger, db/migrations-pg/0002). Each replica listens on it and reads the new rows; the
// listener's connection is Bun's dedicated LISTEN connection, re-subscribed after a drop, and every
// (re)subscription reads too, so notifications missed while it was down lose nothing. SQLite has one
// process per database (the serve lock): its appends wake its own streams directly.
import type { SQL } from "bun";
import type { GatewayDb } from "../db/handle.ts";

export const FLEET_CHANNEL = "agent_gateway_fleet";

/** Calls `wake` on each fleet notification and on each (re)subscription; resolves to the function that stops listening. */
export async function listenForFleetEvents(db: GatewayDb, wake: () => void): Promise<() => Promise<void>> {
  if (db.engine !== "pg") return async () => {};
  const client = (db as unknown as { $client: SQL }).$client;
  const subscription = await client.listen(FLEET_CHANNEL, wake, wake);
  return () => subscription.unlisten();
}
