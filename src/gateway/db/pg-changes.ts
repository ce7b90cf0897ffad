// The change stamp of a gateway on PostgreSQL (the DbStamp of auth/verified-cache.ts). Every statement
// writing an auth or registry table sends `pg_notify('agent_gateway_changes', <table>)` (migration 0002);
// one dedicated connection per gateway process LISTENs to it, and each notification moves the stamp, so
// every replica's token caches empty when any replica or admin command commits a change.
//
// Notifications sent while the listener is not connected are lost. So the stamp vouches for the database
// only while the listener is known to be connected: from the moment its LISTEN is acknowledged until its
// connection closes; otherwise every read is a new stamp and the caches hold nothing, and each new LISTEN
// moves the stamp (everything cached before is dropped). Bun 1.4.5 reconnects a dropped LISTEN by itself
// (measured: onclose, then onlisten again), but it prints every failed retry to stderr and cannot be told
// to drop a connection that died without closing; so the client is closed at the first sign of trouble
// and a new one connects with a capped backoff here. A connection can die silently (a firewall dropping
// idle state, a frozen server process): a heartbeat NOTIFY sent through a second connection must reach the
// listener within a deadline, or the listener is treated as lost.
//
// A gateway's own writes move its stamp as soon as they complete (`followWrites`), as SQLite's pager
// counter does: a token revoked through a replica is refused by that replica on the very next request,
// without waiting for the notification's round trip.
import { SQL } from "bun";
import type { GatewayDb } from "./handle.ts";
import { CONNECT_TIMEOUT_SECS } from "./open-pg.ts";

export const CHANGES_CHANNEL = "agent_gateway_changes";
/** The listener's application_name (pg_stat_activity), so an operator can tell it from the pool. */
export const LISTENER_APPLICATION = "agent-gateway-listener";
const HEARTBEAT_APPLICATION = "agent-gateway-heartbeat";
/** Heartbeat payloads start with this; the triggers' payloads are table names, which cannot. */
const PING = "ping ";

export interface PgChangesOptions {
  url: string;
  password?: string;
  /** Milliseconds between heartbeats (default 5,000). */
  heartbeatMs?: number;
  /** Milliseconds a heartbeat the server accepted may take to reach the listener (default 3,000). */
  heartbeatDeadlineMs?: number;
  /** Told when the listener is lost (caches bypassed) and when it is back (caches emptied, then trusted). */
  report?: (event: "lost" | "restored", reason: string) => void;
}

const RETRY_FIRST_MS = 50;
const RETRY_MAX_MS = 2_000;

export class PgChanges {
  private generation = 0;
  private listening = false;
  private closed = false;
  /** Set once the listener was lost, so its return is reported. */
  private lostOnce = false;
  private listener: SQL | null = null;
  private readonly heartbeat: SQL;
  private retries = 0;
  private retryTimer: Timer | undefined;
  private beatTimer: Timer | undefined;
  private deadlineTimer: Timer | undefined;
  private pings = 0;
  private pendingPing: string | null = null;
  private readonly pingPrefix = `${PING}${crypto.randomUUID()} `;
  private readonly subscribers = new Set<(table: string | null) => void>();

  private constructor(private readonly options: PgChangesOptions) {
    this.heartbeat = new SQL({ ...this.clientOptions(HEARTBEAT_APPLICATION), idleTimeout: 60 });
  }

  /** Starts listening; resolves after the first attempt, connected or not (then it retries by itself). */
  static async start(options: PgChangesOptions): Promise<PgChanges> {
    const changes = new PgChanges(options);
    await changes.attempt();
    return changes;
  }

  /** Whether the listener is connected: the stamp vouches for the database only then. */
  get connected(): boolean {
    return this.listening;
  }

  current(): number {
    return this.listening ? this.generation : ++this.generation;
  }

  /**
   * `listener` runs after each change notification, with its payload (the table written), and after each
   * (re)connection of the listener, with null (anything may have changed).
   */
  onChange(listener: (table: string | null) => void): () => void {
    this.subscribers.add(listener);
    return () => this.subscribers.delete(listener);
  }

  /**
   * Resolves once the stamp has moved past `stamp` while the listener is connected (a notification or a
   * new connection): tests and benchmarks wait on this instead of sleeping.
   */
  async movedPast(stamp: number): Promise<number> {
    for (;;) {
      if (this.listening && this.generation > stamp) return this.generation;
      await new Promise<void>((resolve) => {
        const stop = this.onChange(() => {
          stop();
          resolve();
        });
      });
    }
  }

  /**
   * Moves the stamp after every statement `db` runs that is not a SELECT, and after every transaction,
   * committed or not (conservative: a failed write may have written). Statements prepared before this call
   * are not followed, so it is called before the stores prepare theirs.
   */
  followWrites(db: GatewayDb): void {
    type Prepared = Record<"execute" | "all", (placeholders?: unknown) => Promise<unknown>>;
    const session = (db as unknown as { session: { prepareQuery(query: { sql: string }, ...rest: unknown[]): Prepared } }).session;
    const prepare = session.prepareQuery.bind(session);
    const wrote = () => void this.generation++;
    session.prepareQuery = (query, ...rest) => {
      const prepared = prepare(query, ...rest);
      if (/^\s*select\b/i.test(query.sql)) return prepared;
      for (const method of ["execute", "all"] as const) {
        const run = prepared[method].bind(prepared);
        prepared[method] = (placeholders) => run(placeholders).finally(wrote);
      }
      return prepared;
    };
    const tx = db.tx;
    db.tx = (fn, options) => tx(fn, options).finally(wrote);
  }

  /** Stops listening and closes both connections (the gateway's `db.close()`). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listening = false;
    this.generation++;
    clearTimeout(this.retryTimer);
    this.stopHeartbeat();
    // An attempt in flight fails when its client closes, and stops there (`closed`).
    const listener = this.listener;
    this.listener = null;
    await Promise.all([listener?.close({ timeout: 0 }), this.heartbeat.close({ timeout: 0 })]);
  }

  private clientOptions(application: string) {
    const { url, password } = this.options;
    return { url, max: 1, connectionTimeout: CONNECT_TIMEOUT_SECS, connection: { application_name: application }, ...(password !== undefined ? { password } : {}) };
  }

  private async attempt(): Promise<void> {
    if (this.closed) return;
    const client: SQL = new SQL({ ...this.clientOptions(LISTENER_APPLICATION), onclose: (error) => this.lost(client, error?.message ?? "closed") });
    this.listener = client;
    try {
      await client.listen(CHANGES_CHANNEL, (payload) => this.notified(payload));
    } catch (error) {
      this.lost(client, (error as Error).message);
      return;
    }
    if (this.listener !== client || this.closed) return;
    // Acknowledged: every commit from now on is announced to this connection, and every commit before is
    // visible to any read started from now on. What was cached before may be stale: move the stamp.
    this.listening = true;
    this.retries = 0;
    this.generation++;
    this.startHeartbeat();
    if (this.lostOnce) this.options.report?.("restored", "listening again");
    this.announce(null);
  }

  private notified(payload: string): void {
    if (payload.startsWith(PING)) {
      if (payload === this.pendingPing) {
        this.pendingPing = null;
        clearTimeout(this.deadlineTimer);
      }
      return;
    }
    this.generation++;
    this.announce(payload);
  }

  private announce(table: string | null): void {
    for (const subscriber of [...this.subscribers]) subscriber(table);
  }

  /** The listener `client` is gone (closed, failed to connect, or silent): distrust, drop it, reconnect. */
  private lost(client: SQL, reason: string): void {
    if (client !== this.listener || this.closed) return;
    this.listener = null;
    const wasListening = this.listening;
    this.listening = false;
    this.generation++;
    this.stopHeartbeat();
    // Closed here so Bun does not reconnect it behind our back (its reconnection would hide the gap).
    void client.close({ timeout: 0 }).catch(() => {});
    if (wasListening) {
      this.lostOnce = true;
      this.options.report?.("lost", reason);
    }
    const delay = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** this.retries++);
    this.retryTimer = setTimeout(() => void this.attempt(), delay);
    this.retryTimer.unref?.();
  }

  private startHeartbeat(): void {
    this.beatTimer = setInterval(() => this.beat(), this.options.heartbeatMs ?? 5_000);
    this.beatTimer.unref?.();
  }

  private stopHeartbeat(): void {
    clearInterval(this.beatTimer);
    clearTimeout(this.deadlineTimer);
    this.pendingPing = null;
  }

  private beat(): void {
    const client = this.listener;
    if (!this.listening || !client || this.pendingPing !== null) return;
    const payload = `${this.pingPrefix}${++this.pings}`;
    this.pendingPing = payload;
    this.heartbeat.notify(CHANGES_CHANNEL, payload).then(
      () => {
        // The server accepted it: a connected listener receives it (it may already have).
        if (this.pendingPing !== payload) return;
        this.deadlineTimer = setTimeout(() => {
          if (this.pendingPing === payload) this.lost(client, "a heartbeat notification did not arrive");
        }, this.options.heartbeatDeadlineMs ?? 3_000);
        this.deadlineTimer.unref?.();
      },
      // Not sent (the database is unreachable): that says nothing about the listener; the next beat tries again.
      () => {
        if (this.pendingPing === payload) this.pendingPing = null;
      },
    );
  }
}
