// The client side of the daemon protocol (client-protocol.md, typical client sequence): fetch the
// snapshot, replay records from a cursor, follow live frames, and keep the last APPLIED cursor apart
// from anything merely received. An epoch change, a reset or a rejected cursor discards the cursor and
// starts again from a new snapshot; a cursor is never invented. Correlated commands are retried with the
// same (window, operation) key and payload; a stored failure is surfaced, never resubmitted as new.
import type { Static } from "@sinclair/typebox";
import type { CommandListBody, DequeueResponse, InterrogativeResponseBody, PromptResponse, SessionCommandResponse } from "../protocol/daemon-responses.ts";
import type { ClientOperationResult, OperationContext } from "../protocol/operation.ts";
import type { SyncRecord } from "../protocol/sync-record.ts";
import type { StatusRecord, SyncSnapshotBody, SyncStatus } from "../protocol/sync-shapes.ts";
import { openWithin, parseSse, type SseOptions } from "./daemon-sse.ts";

export class DaemonRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "DaemonRequestError";
  }
}

export interface FollowHandlers {
  /** A new snapshot. `rebuild`: everything known so far is void (first sync, new epoch, reset); replay starts from the origin. */
  onSnapshot?(snapshot: SyncSnapshotBody, rebuild: boolean): void;
  /** Records in order; called once per frame, before that frame's cursor becomes the applied one. */
  onRecords(records: SyncRecord[]): void | Promise<void>;
  /** A recoverable problem (lost connection, reset): the follower resyncs by itself. */
  onProblem?(message: string): void;
}

export interface DaemonClientOptions {
  /** The daemon's base URL, or a function read before each request (a restarted daemon may listen elsewhere). */
  url: string | (() => string);
  /** The bearer token, or a function read before each request (a gateway token that is refreshed). */
  token: string | (() => Promise<string>);
  /** The transport (a pinned HTTPS fetch to a gateway); global fetch when absent. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Waits between reconnect attempts (tests pass a short one). */
  retryDelayMs?: number;
  /** Attempts of one correlated command when the connection fails. */
  commandAttempts?: number;
  /** When a silent /events stream counts as dead (default 35 s; tests pass a manual timer). */
  liveness?: SseOptions;
}

export class DaemonClient {
  /** The cursor after the last record this client applied (null: nothing applied in the current epoch). */
  appliedCursor: string | null = null;
  epoch: string | null = null;
  snapshot: SyncSnapshotBody | null = null;
  constructor(private readonly options: DaemonClientOptions) {}

  private get base(): string {
    const url = typeof this.options.url === "string" ? this.options.url : this.options.url();
    return url.replace(/\/$/, "");
  }

  async request(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
    const token = typeof this.options.token === "string" ? this.options.token : await this.options.token();
    return (this.options.fetch ?? fetch)(this.base + path, {
      method,
      signal,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.request(method, path, body);
    const parsed = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok) throw toError(res.status, parsed);
    return parsed as T;
  }

  async sync(): Promise<SyncSnapshotBody> {
    this.snapshot = await this.json<SyncSnapshotBody>("GET", "/sync");
    return this.snapshot;
  }

  summary(): Promise<SyncStatus> {
    return this.json<SyncStatus>("GET", "/sync/summary");
  }

  /**
   * Follows the session until `signal` aborts: snapshot, replay, live frames; resyncs after a lost
   * connection (same epoch: from the applied cursor) or after an epoch change or reset (from the origin).
   * A stream silent past the liveness deadline (not even a heartbeat) is a lost connection: reported
   * through onProblem, then followed again.
   */
  async follow(handlers: FollowHandlers, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const snap = await this.sync();
        const rebuild = snap.daemon_epoch !== this.epoch || this.appliedCursor === null;
        if (rebuild) {
          this.epoch = snap.daemon_epoch;
          this.appliedCursor = null;
        }
        handlers.onSnapshot?.(snap, rebuild);
        await this.stream(this.appliedCursor ?? snap.origin_cursor, handlers, signal);
        if (!signal.aborted) handlers.onProblem?.("the event stream ended; reconnecting");
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof DaemonRequestError && isResyncCode(error.code)) {
          // The cursor is void (another epoch, reset, too old, foreign): drop it and start from a new snapshot.
          this.appliedCursor = null;
          this.epoch = null;
          handlers.onProblem?.(`${error.code}: resyncing from a new snapshot`);
          continue;
        }
        handlers.onProblem?.(error instanceof Error ? error.message : String(error));
      }
      await sleep(this.options.retryDelayMs ?? 500, signal);
    }
  }

  private async stream(after: string, handlers: FollowHandlers, signal: AbortSignal): Promise<void> {
    const res = await openWithin((open) => this.request("GET", `/events?after=${encodeURIComponent(after)}`, undefined, open), signal, this.options.liveness);
    if (!res.ok) throw toError(res.status, (await res.json().catch(() => ({}))) as Record<string, unknown>);
    for await (const msg of parseSse(res.body!, this.options.liveness)) {
      if ("comment" in msg) continue;
      if (msg.event === "reset") throw new DaemonRequestError(410, "reset_required", "the daemon reset the stream");
      if (msg.event !== "records" || !msg.id) continue;
      const { records } = JSON.parse(msg.data) as { records: SyncRecord[] };
      await handlers.onRecords(records);
      // Only now, with the frame applied, does its cursor become the one to resume from.
      this.appliedCursor = msg.id;
    }
  }

  /** A fresh operation context from the latest snapshot (refetched when missing or expiring). */
  async operationContext(): Promise<OperationContext> {
    let snap = this.snapshot;
    if (!snap?.operation_window || Date.parse(snap.operation_window.expires_at) - Date.now() < 30_000) snap = await this.sync();
    if (!snap.operation_window) throw new DaemonRequestError(409, "session_stopped", "the session is stopped; it accepts no commands");
    return { daemon_epoch: snap.daemon_epoch, window: snap.operation_window.window, operation: crypto.randomUUID() };
  }

  /**
   * Sends a correlated command; when the connection fails the SAME key and payload are sent again, so the
   * daemon runs it at most once. Returns the route's body with its operation result.
   */
  async command<T extends { operation: ClientOperationResult | null }>(path: string, payload: Record<string, unknown>, ctx?: OperationContext): Promise<T> {
    const operation_context = ctx ?? (await this.operationContext());
    const attempts = this.options.commandAttempts ?? 4;
    let lastError: unknown;
    for (let i = 0; i < attempts; i++) {
      try {
        return await this.json<T>("POST", path, { ...payload, operation_context });
      } catch (error) {
        if (error instanceof DaemonRequestError) throw error;
        lastError = error;
        await sleep((this.options.retryDelayMs ?? 500) * (i + 1));
      }
    }
    throw lastError;
  }

  prompt(text: string, options: { whenBusy?: "queue" | "reject"; ctx?: OperationContext; images?: { media_type: string; data_base64: string }[] } = {}) {
    return this.command<Static<typeof PromptResponse>>(
      "/prompt",
      { text, ...(options.whenBusy ? { when_busy: options.whenBusy } : {}), ...(options.images?.length ? { images: options.images } : {}) },
      options.ctx,
    );
  }

  dequeueNewest() {
    return this.command<Static<typeof DequeueResponse>>("/queue/dequeue-newest", {});
  }

  answer(interrogativeId: string, answer: Record<string, unknown>) {
    return this.command<Static<typeof InterrogativeResponseBody>>(`/interrogatives/${encodeURIComponent(interrogativeId)}/response`, { answer });
  }

  /** The session commands the daemon offers (`/help`). */
  commands() {
    return this.json<Static<typeof CommandListBody>>("GET", "/commands");
  }

  /** Runs a session command (`/name args...`) as a correlated operation. */
  sessionCommand(name: string, args: string[] = []) {
    return this.command<Static<typeof SessionCommandResponse>>(`/commands/${encodeURIComponent(name)}`, { args });
  }

  interrupt() {
    return this.json<Static<typeof StatusRecord>>("POST", "/interrupt");
  }

  stop(exit = false) {
    return this.json<Static<typeof StatusRecord>>("POST", "/session/stop", { exit });
  }
}

const RESYNC = new Set(["epoch_mismatch", "reset_required", "cursor_too_old", "invalid_cursor", "cursor_wrong_session"]);

function isResyncCode(code: string): boolean {
  return RESYNC.has(code);
}

function toError(status: number, body: Record<string, unknown>): DaemonRequestError {
  const code = String(body.code ?? body.error ?? `http_${status}`);
  const message = typeof body.message === "string" ? body.message : `the daemon answered ${status} ${code}`;
  return new DaemonRequestError(status, code, message, body);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}
