// Values every replica shares (gateway_settings): the pepper's fingerprint, the TLS identity, the fleet
// epoch. A value is written once by the first replica that needs it and read by every later one, so the
// write is "insert if absent" inside one transaction (db.tx serializes transactions across replicas).
import { eq } from "drizzle-orm";
import { first, type GatewayDb } from "./handle.ts";

/** The stored value of `key`, or undefined when no replica has stored one. */
export async function getSetting(db: GatewayDb, key: string): Promise<string | undefined> {
  const row = await first(db.select({ value: db.t.gatewaySettings.value }).from(db.t.gatewaySettings).where(eq(db.t.gatewaySettings.key, key)));
  return row?.value;
}

/**
 * Stores `value` under `key` unless a value is already there, and returns the stored value: `value` when
 * this call wrote it, else the earlier writer's. The first writer wins, across replicas too.
 */
export async function putSettingIfAbsent(db: GatewayDb, key: string, value: string | (() => Promise<string> | string), now: Date): Promise<string> {
  return db.tx(async (tx) => {
    const existing = await getSetting(tx, key);
    if (existing !== undefined) return existing;
    const fresh = typeof value === "function" ? await value() : value;
    await tx.insert(tx.t.gatewaySettings).values({ key, value: fresh, updatedAt: now.getTime() });
    return fresh;
  });
}

/** Stores `value` under `key`, replacing any earlier value (deliberate changes only, e.g. an adopted pepper). */
export async function putSetting(db: GatewayDb, key: string, value: string, now: Date): Promise<void> {
  const { gatewaySettings } = db.t;
  await db.insert(gatewaySettings).values({ key, value, updatedAt: now.getTime() }).onConflictDoUpdate({ target: gatewaySettings.key, set: { value, updatedAt: now.getTime() } });
}

export async function deleteSetting(db: GatewayDb, key: string): Promise<void> {
  await db.delete(db.t.gatewaySettings).where(eq(db.t.gatewaySettings.key, key));
}
