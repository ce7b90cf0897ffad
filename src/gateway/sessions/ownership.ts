// Which gateway host supervises a session or a project (issue 38 item 4, decisions-gateway 60). A
// session's daemon, its directory and a project's files live on one machine; only the gateway on that
// host (`host_name` of its config) may launch, watch, fail, stop or delete them. The others read the rows
// and answer a request that needs the owner with 409 `owned_by_other_host` naming it.
import { and, isNotNull, isNull, ne, notInArray, or } from "drizzle-orm";
import { ProtocolError } from "../../protocol/errors.ts";
import type { GatewayDb } from "../db/handle.ts";

/** The owner named in a row when it is another host; null when the row is this host's. */
export function otherOwner(ownerHost: string | null, me: string): string | null {
  // No owner: a row written before owners were recorded and not yet claimed at a start (claimRows).
  return ownerHost === null || ownerHost === me ? null : ownerHost;
}

/** The answer to a request that only the owner host can serve. */
export function ownedElsewhere(what: "session" | "project", id: string, owner: string): ProtocolError {
  return new ProtocolError("owned_by_other_host", 409, `${what} ${id} is supervised by gateway host ${owner}; connect to that host (gateway fronts forward only to joined host agents)`);
}

/** Throws `ownedElsewhere` when the row belongs to another host. */
export function assertOwned(what: "session" | "project", row: { id: string; ownerHost: string | null }, me: string): void {
  const owner = otherOwner(row.ownerHost, me);
  if (owner !== null) throw ownedElsewhere(what, row.id, owner);
}

/**
 * At gateway start, before reconciliation: the rows this host takes on. SQLite has one gateway by
 * construction (decisions-gateway 51), so every row is this host's, whatever name an earlier start gave
 * it (a renamed host keeps its sessions), except the rows of joined host agents (`hosts` rows with a
 * protocol): their daemons run on those machines. On PostgreSQL only the rows with no owner are claimed (written by a
 * SQLite gateway before owners were recorded and imported): the first replica to start takes them.
 * Returns how many rows were claimed.
 */
export async function claimRows(db: GatewayDb, me: string): Promise<number> {
  return await db.tx(async (tx) => {
    let claimed = 0;
    // Joined host agents: hosts that connected with a host protocol (a front's own row has none, presence.ts).
    const joined = tx.select({ name: tx.t.hosts.name }).from(tx.t.hosts).where(isNotNull(tx.t.hosts.protocol));
    for (const table of [tx.t.projects, tx.t.sessions]) {
      const unclaimed = db.engine === "sqlite" ? or(isNull(table.ownerHost), and(ne(table.ownerHost, me), notInArray(table.ownerHost, joined))) : isNull(table.ownerHost);
      claimed += (await tx.update(table).set({ ownerHost: me }).where(unclaimed).returning({ id: table.id })).length;
    }
    return claimed;
  });
}
