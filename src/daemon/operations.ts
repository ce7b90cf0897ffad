// Operation correlation: server-issued windows (10 minutes) and the ledger-backed runner of correlated
// commands. The key is (window, operation); a retry with the same payload gets the stored response
// (status and body) without running again; a changed payload is a conflict; failures are durable too.
import { ProtocolError } from "../protocol/errors.ts";
import type { ClientOperationResult, OperationContext, OperationWindow } from "../protocol/operation.ts";
import { TokenError, type TokenSigner } from "../protocol/tokens.ts";
import { newId, sha256Hex } from "../util/ids.ts";
import type { OperationStatus } from "./store/ledger.ts";
import type { SessionStore } from "./store/index.ts";

export interface CommandOutcome {
  /** HTTP status of the response (2xx for success). */
  httpStatus: number;
  status: OperationStatus;
  /** The route's own response fields. */
  body: Record<string, unknown>;
  outcome?: Record<string, unknown>;
  committedCursor?: string;
}

export interface Correlated {
  httpStatus: number;
  /** The response body as JSON text. */
  body: string;
}

export interface OperationKey {
  windowId: string;
  operation: string;
}

export class Operations {
  private window: { id: string; expiresAt: number; token: string } | null = null;

  constructor(
    private readonly store: SessionStore,
    private readonly signer: TokenSigner,
    private readonly now: () => number,
    private readonly windowMs: number,
    /** Called whenever a stored result changes status (the daemon journals it as an operation_result record). */
    private readonly onResult: (result: ClientOperationResult) => void,
  ) {}

  /** The current window, issuing a fresh one when none is current. */
  currentWindow(): OperationWindow {
    const now = this.now();
    if (!this.window || this.window.expiresAt <= now) {
      const id = newId("win", now);
      const expiresAt = now + this.windowMs;
      this.window = { id, expiresAt, token: this.signer.sign("win", { w: id, x: String(expiresAt) }) };
    }
    return { window: this.window.token, window_id: this.window.id, expires_at: new Date(this.window.expiresAt).toISOString() };
  }

  /** Checks an operation context: this epoch, a window this daemon issued, not expired. */
  verify(ctx: OperationContext): { windowId: string; expiresAt: number } {
    if (ctx.daemon_epoch !== this.signer.epoch) throw new ProtocolError("epoch_mismatch", undefined, "the operation context is from another daemon epoch; fetch GET /sync for a new window");
    let payload;
    try {
      payload = this.signer.verify("win", ctx.window);
    } catch (error) {
      if (error instanceof TokenError && error.problem === "wrong_epoch") throw new ProtocolError("epoch_mismatch", undefined, "the operation window is from another daemon epoch; fetch GET /sync for a new window");
      throw new ProtocolError("invalid_operation_context", undefined, "operation_context.window is not a window this daemon issued; fetch GET /sync for one");
    }
    const expiresAt = Number(payload.x);
    if (!(expiresAt > this.now())) throw new ProtocolError("operation_expired", undefined, "the operation window has expired; fetch GET /sync for a fresh window and use a new operation id");
    return { windowId: payload.w!, expiresAt };
  }

  /**
   * Runs a command once per (window, operation). Without a context the command simply runs. The ledger row
   * is written (admitted) before the command starts, so a retry racing the first attempt sees it.
   */
  async run(route: string, ctx: OperationContext | undefined, payload: unknown, exec: (key: OperationKey | null) => Promise<CommandOutcome>): Promise<Correlated> {
    if (!ctx) {
      try {
        const out = await exec(null);
        return { httpStatus: out.httpStatus, body: JSON.stringify({ ...out.body, operation: null }) };
      } catch (error) {
        if (error instanceof ProtocolError) return { httpStatus: error.status, body: JSON.stringify({ ...errorBody(error), operation: null }) };
        throw error;
      }
    }
    const { windowId, expiresAt } = this.verify(ctx);
    const digest = sha256Hex(`${route}\n${canonicalJson(payload)}`);
    const key = { windowId, operation: ctx.operation.toLowerCase() };
    const existing = this.store.ledger.get(key.windowId, key.operation);
    if (existing) {
      if (existing.digest !== digest || existing.route !== route) throw new ProtocolError("operation_payload_conflict", undefined, "this operation id was already used with a different payload; use a new operation id for a different command");
      return { httpStatus: existing.httpStatus, body: existing.result };
    }
    const admitted = this.result(key, "admitted");
    const admittedBody = JSON.stringify({ operation: admitted });
    if (!this.store.ledger.hasRoom(admittedBody.length * 4, this.now())) {
      throw new ProtocolError("operation_capacity_exceeded", undefined, "the operation ledger is full; back off and retry with a new window once operations are accepted again");
    }
    this.store.ledger.insert({ ...key, route, digest, status: "admitted", httpStatus: 202, result: admittedBody, expiresAt }, this.now());
    let stored: Correlated;
    try {
      const out = await exec(key);
      // The command's own records may already have moved the result on (a prompt's turn started): keep that.
      const moved = (JSON.parse(this.store.ledger.get(key.windowId, key.operation)?.result ?? admittedBody) as { operation: ClientOperationResult }).operation;
      const status = moved.status === "admitted" ? out.status : moved.status;
      const result = this.result(key, status, { outcome: { ...out.outcome, ...moved.outcome }, committed_cursor: moved.committed_cursor ?? out.committedCursor });
      stored = { httpStatus: out.httpStatus, body: JSON.stringify({ ...out.body, operation: result }) };
      this.store.ledger.update(key.windowId, key.operation, { status, httpStatus: stored.httpStatus, result: stored.body });
      this.onResult(result);
    } catch (error) {
      const pe = error instanceof ProtocolError ? error : new ProtocolError("internal_error", 500, "the command failed inside the daemon");
      const result = this.result(key, "failed", { error: { code: pe.code, message: pe.message } });
      stored = { httpStatus: pe.status, body: JSON.stringify({ ...errorBody(pe), operation: result }) };
      this.store.ledger.update(key.windowId, key.operation, { status: "failed", httpStatus: stored.httpStatus, result: stored.body });
      this.onResult(result);
      if (!(error instanceof ProtocolError)) throw error;
    }
    return stored;
  }

  /** Moves a stored result on (a prompt's turn started or ended); the stored response follows. */
  advance(key: OperationKey, status: OperationStatus, extra: { outcome?: Record<string, unknown>; error?: { code: string; message?: string }; committed_cursor?: string }): void {
    const entry = this.store.ledger.get(key.windowId, key.operation);
    if (!entry) return;
    const body = JSON.parse(entry.result) as { operation: ClientOperationResult };
    const previous = body.operation;
    const result = this.result(key, status, { ...extra, outcome: { ...previous.outcome, ...extra.outcome }, committed_cursor: extra.committed_cursor ?? previous.committed_cursor });
    body.operation = result;
    const text = JSON.stringify(body);
    this.store.ledger.update(key.windowId, key.operation, { status, httpStatus: entry.httpStatus, result: text });
    this.onResult(result);
  }

  /**
   * Fails every result still admitted or in progress when nothing will move it on any more: after a
   * restart (the turn that ran it was interrupted by the crash) or once the engine is closed (a stop).
   * The stored response keeps its status and body; the result keeps the epoch it was admitted in.
   */
  settleOpen(code: string, message: string): void {
    for (const entry of this.store.ledger.unsettled()) {
      const body = JSON.parse(entry.result) as { operation: ClientOperationResult };
      const result: ClientOperationResult = { ...body.operation, status: "failed", error: { code, message } };
      body.operation = result;
      this.store.ledger.update(entry.windowId, entry.operation, { status: "failed", httpStatus: entry.httpStatus, result: JSON.stringify(body) });
      this.onResult(result);
    }
  }

  private result(key: OperationKey, status: OperationStatus, extra: Partial<ClientOperationResult> = {}): ClientOperationResult {
    const out: ClientOperationResult = { version: 1, daemon_epoch: this.signer.epoch, window_id: key.windowId, operation: key.operation, status };
    if (extra.committed_cursor) out.committed_cursor = extra.committed_cursor;
    if (extra.outcome && Object.keys(extra.outcome).length > 0) out.outcome = extra.outcome;
    if (extra.error) out.error = extra.error;
    return out;
  }
}

/** The error body of every daemon route: `code` (the spec's field) and `error` (the gateway's), plus a message. */
export function errorBody(error: ProtocolError): Record<string, string> {
  return { code: error.code, error: error.code, message: error.message };
}

/** JSON with object keys sorted, so that equal payloads have equal digests whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const keys = Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
