// The change stamp of a gateway on PostgreSQL (src/gateway/db/pg-changes.ts) against a real server: it
// holds still while nothing is written, moves on every write the triggers announce, is not trusted while
// its listener is down (a killed backend, a stopped server, a listener that silently stops receiving), is
// moved again when the listener is back, and leaves no connection behind when closed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { eq } from "drizzle-orm";
import { openGatewayPg } from "../../../src/gateway/db/open-pg.ts";
import type { GatewayDb } from "../../../src/gateway/db/handle.ts";
import { LISTENER_APPLICATION, PgChanges, type PgChangesOptions } from "../../../src/gateway/db/pg-changes.ts";
import { freshPgDatabase, PG_MISSING, pgTest, startPgServer, type ControlledPgServer } from "../../helpers/postgres.ts";

/** Reports of a PgChanges, awaitable in order. */
function reports() {
  const seen: string[] = [];
  const reasons: string[] = [];
  const waiting: { event: string; resolve: () => void }[] = [];
  return {
    seen,
    reasons,
    report: ((event, reason) => {
      seen.push(event);
      reasons.push(reason);
      for (const w of waiting.filter((w) => w.event === event)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve();
      }
    }) satisfies PgChangesOptions["report"],
    /** Resolves at the next `event` reported from now on. */
    next: (event: "lost" | "restored") => new Promise<void>((resolve) => waiting.push({ event, resolve })),
  };
}

async function addPrincipal(db: GatewayDb, username: string): Promise<void> {
  await db.insert(db.t.principals).values({ id: `prn_${username}`, username, createdAt: 1, updatedAt: 1 });
}

/** The backends of one application name in the database. */
async function backends(url: string, application: string): Promise<number[]> {
  const admin = new SQL(url);
  try {
    return ((await admin`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = ${application}`) as { pid: number }[]).map((r) => r.pid);
  } finally {
    await admin.close();
  }
}

async function terminateListener(url: string): Promise<void> {
  const admin = new SQL(url);
  try {
    await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = ${LISTENER_APPLICATION}`;
  } finally {
    await admin.close();
  }
}

describe("on the shared test server", () => {
  let url: string;
  let db: GatewayDb;
  beforeAll(async () => {
    if (PG_MISSING) return;
    url = await freshPgDatabase();
    db = (await openGatewayPg(url)).db;
  });
  afterAll(() => db?.close());

  pgTest("the stamp holds still while nothing is written and moves when a trigger announces a write", async () => {
    const changes = await PgChanges.start({ url });
    try {
      expect(changes.connected).toBe(true);
      const before = changes.current();
      expect(changes.current()).toBe(before);
      await db.select().from(db.t.principals); // a read announces nothing
      expect(changes.current()).toBe(before);
      const moved = changes.movedPast(before);
      await addPrincipal(db, "ada");
      expect(await moved).toBeGreaterThan(before);
      const after = changes.current();
      await db.update(db.t.principals).set({ updatedAt: 2 }).where(eq(db.t.principals.username, "ada"));
      expect(await changes.movedPast(after)).toBeGreaterThan(after);
    } finally {
      await changes.close();
    }
  });

  pgTest("a killed listener is not trusted; it reconnects by itself, which moves the stamp, and a write is seen again", async () => {
    const r = reports();
    const changes = await PgChanges.start({ url, report: r.report });
    try {
      const trusted = changes.current();
      const lost = r.next("lost");
      const restored = r.next("restored");
      await terminateListener(url);
      await lost;
      // Each read is a new stamp until the listener is back (unless it already is).
      if (!changes.connected) expect(changes.current()).not.toBe(changes.current());
      await restored;
      expect(changes.connected).toBe(true);
      const now = changes.current();
      expect(now).toBeGreaterThan(trusted);
      expect(changes.current()).toBe(now);
      await addPrincipal(db, "bob");
      expect(await changes.movedPast(now)).toBeGreaterThan(now);
      expect(r.seen).toEqual(["lost", "restored"]);
    } finally {
      await changes.close();
    }
  });

  pgTest("close() ends the listener and the heartbeat connection", async () => {
    const changes = await PgChanges.start({ url, heartbeatMs: 20 });
    await addPrincipal(db, "carol");
    await changes.movedPast(0);
    // Let a heartbeat open its connection.
    while ((await backends(url, "agent-gateway-heartbeat")).length === 0) await Bun.sleep(10);
    expect(await backends(url, LISTENER_APPLICATION)).toHaveLength(1);
    await changes.close();
    expect(changes.connected).toBe(false);
    expect(changes.current()).not.toBe(changes.current());
    // The server sees a closed connection a moment after the client closes it.
    while ((await backends(url, LISTENER_APPLICATION)).length + (await backends(url, "agent-gateway-heartbeat")).length > 0) await Bun.sleep(10);
  });

  pgTest("a listener that silently stops receiving (its backend frozen) is caught by the heartbeat and replaced", async () => {
    const r = reports();
    const changes = await PgChanges.start({ url, heartbeatMs: 50, heartbeatDeadlineMs: 200, report: r.report });
    const [frozen] = await backends(url, LISTENER_APPLICATION);
    expect(frozen).toBeNumber();
    try {
      const lost = r.next("lost");
      const restored = r.next("restored");
      process.kill(frozen!, "SIGSTOP");
      await lost;
      expect(r.reasons[0]).toBe("a heartbeat notification did not arrive");
      await restored;
      // The replacement receives what the frozen one no longer could.
      const now = changes.current();
      await addPrincipal(db, "dave");
      expect(await changes.movedPast(now)).toBeGreaterThan(now);
    } finally {
      process.kill(frozen!, "SIGCONT");
      await changes.close();
    }
  });
});

describe("on a server that stops", () => {
  let pg: ControlledPgServer;
  let url: string;
  beforeAll(async () => {
    if (PG_MISSING) return;
    pg = startPgServer();
    url = await freshPgDatabase(pg);
    await (await openGatewayPg(url)).db.close();
  });
  afterAll(() => {
    if (pg?.running) pg.stop("immediate");
  });

  pgTest("while the server is down every read is a new stamp; once it is back the listener returns by itself", async () => {
    const r = reports();
    const changes = await PgChanges.start({ url, report: r.report });
    try {
      const lost = r.next("lost");
      pg.stop("fast");
      await lost;
      // The server is down: no stamp is ever read twice, so nothing cached survives a read.
      const reads = Array.from({ length: 5 }, () => changes.current());
      expect(new Set(reads).size).toBe(5);
      expect(changes.connected).toBe(false);
      const restored = r.next("restored");
      pg.start();
      await restored;
      const now = changes.current();
      expect(changes.current()).toBe(now);
      const db = (await openGatewayPg(url)).db;
      try {
        await addPrincipal(db, "erin");
        expect(await changes.movedPast(now)).toBeGreaterThan(now);
      } finally {
        await db.close();
      }
    } finally {
      await changes.close();
    }
  });

  pgTest("a listener started while the server is down keeps trying and connects when it is up", async () => {
    pg.stop("fast");
    const r = reports();
    const changes = await PgChanges.start({ url, report: r.report });
    try {
      expect(changes.connected).toBe(false);
      expect(changes.current()).not.toBe(changes.current());
      pg.start();
      await changes.movedPast(changes.current());
      expect(changes.connected).toBe(true);
    } finally {
      await changes.close();
    }
  });
});
