// Stopped-session history through the gateway (client-protocol.md, Stopped-session history and rules
// 1-2). The first request captures an immutable checkpoint of the session's store with the daemon's own
// item projection (buildHistory); pages carry signed next_page tokens; attachments are read by adjacent
// ranges. Captures share one spool: at most N of them and M bytes together, each for a limited time.
import { buildHistory, type CapturedAttachment } from "../../daemon/history-items.ts";
import { StoreCorruptError } from "../../daemon/store/index.ts";
import { TokenError, TokenSigner } from "../../protocol/tokens.ts";
import { newId } from "../../util/ids.ts";
import type { Clock } from "../../util/clock.ts";
import { FleetError } from "./fleet-error.ts";
import type { FleetLimits } from "./limits.ts";
import type { FleetRows } from "./rows.ts";
import { readStore, type StoreView } from "./store-reader.ts";

interface Capture {
  id: string;
  sessionId: string;
  token: string;
  expiresAt: number;
  sourceRevision: number;
  /** Each item's JSON text. */
  items: string[];
  attachments: Map<string, CapturedAttachment>;
  bytes: number;
}

export interface AttachmentQuery {
  checkpoint?: string;
  offset?: number;
  length?: number;
}

export class StoppedHistory {
  private readonly captures = new Map<string, Capture>();

  constructor(
    private readonly key: Uint8Array,
    private readonly epoch: string,
    private readonly rows: Pick<FleetRows, "session">,
    private readonly clock: Clock,
    private readonly limits: FleetLimits,
  ) {}

  get retained(): { captures: number; bytes: number } {
    let bytes = 0;
    for (const c of this.captures.values()) bytes += c.bytes;
    return { captures: this.captures.size, bytes };
  }

  /** A history page as JSON text (items are spliced in as captured). */
  async page(sessionId: string, query: { checkpoint?: string; page?: string }): Promise<string> {
    const signer = this.signer(sessionId);
    const { capture, offset } = await this.withSource(sessionId, (view) => {
      if (query.checkpoint === undefined) {
        if (query.page !== undefined) throw new FleetError("invalid_checkpoint", "a page token needs the checkpoint it came with");
        return { capture: this.capture(sessionId, signer, view), offset: 0 };
      }
      const found = this.lookup(signer, query.checkpoint, view);
      return { capture: found, offset: query.page === undefined ? 0 : this.pageOffset(signer, query.page, found) };
    });
    const items: string[] = [];
    let bytes = 0;
    let i = offset;
    for (; i < capture.items.length && items.length < this.limits.historyPageItems; i++) {
      const text = capture.items[i]!;
      const size = Buffer.byteLength(text) + 1;
      // Headroom under the page bound for the envelope (ids, tokens).
      if (items.length > 0 && bytes + size > this.limits.historyPageBytes - 4096) break;
      bytes += size;
      items.push(text);
    }
    const next_page = i < capture.items.length ? signer.sign("pag", { c: capture.id, o: String(i) }) : null;
    const head = JSON.stringify({ version: 1, session_id: sessionId, checkpoint: capture.token, total_items: capture.items.length, next_page, items: [] });
    return `${head.slice(0, -"]}".length)}${items.join(",")}]}`;
  }

  async attachment(sessionId: string, artifactId: string, query: AttachmentQuery) {
    if (query.checkpoint === undefined) throw new FleetError("invalid_checkpoint", "attachment reads need the checkpoint of the history that advertised them");
    const signer = this.signer(sessionId);
    const capture = await this.withSource(sessionId, (view) => this.lookup(signer, query.checkpoint!, view));
    const artifact = capture.attachments.get(artifactId);
    if (!artifact) throw new FleetError("attachment_not_found", `the checkpoint does not advertise attachment '${artifactId.slice(0, 80)}'`);
    if (!artifact.data) throw new FleetError("history_unavailable", `attachment '${artifactId}' is not retrievable (render it as unavailable)`);
    const total = artifact.data.length;
    const maxChunk = Math.floor(this.limits.attachmentResponseBytes / 4) * 3; // its base64 fills the response bound
    const offset = query.offset ?? 0;
    const length = query.length ?? Math.min(maxChunk, total - offset);
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset + length > Number.MAX_SAFE_INTEGER) throw new FleetError("attachment_range_invalid", "the range overflows");
    if (length > maxChunk) throw new FleetError("attachment_too_large", `length ${length} is over the ${maxChunk}-byte chunk bound; request a smaller range`);
    if (length <= 0) throw new FleetError("attachment_range_invalid", "length must be at least 1");
    if (offset >= total) throw new FleetError("attachment_range_invalid", `offset ${offset} is beyond the attachment (${total} bytes)`);
    if (offset + length > total) throw new FleetError("attachment_range_invalid", `the range ${offset}+${length} overflows the attachment (${total} bytes)`);
    return { artifact_id: artifactId, media_type: artifact.mediaType, total_length: total, offset, data_base64: artifact.data.subarray(offset, offset + length).toString("base64") };
  }

  private signer(sessionId: string): TokenSigner {
    return new TokenSigner(this.key, sessionId, this.epoch);
  }

  /** Checks the gateway row (stopped, daemon not running), then reads the session's store. */
  private async withSource<T>(sessionId: string, read: (view: StoreView) => T): Promise<T> {
    const row = await this.rows.session(sessionId);
    if (!row || row.state === "reaped" || row.state === "cleanup_pending") throw new FleetError("history_unavailable", "no such session in the fleet; refresh the catalog");
    if (row.state === "starting" || row.state === "running") throw new FleetError("history_requires_stopped", `the session is ${row.state}; its history is served once it is stopped`);
    if (!row.sessionDir) throw new FleetError("history_unavailable", "the session has no history store");
    return readStore(row.sessionDir, (view) => {
      if (view.meta.state !== "stopped" || !view.meta.finalized) throw new FleetError("history_not_finalized", "the session's history was not finalized (its daemon did not stop cleanly); resume and stop it to finalize");
      return read(view);
    });
  }

  private capture(sessionId: string, signer: TokenSigner, view: StoreView): Capture {
    const now = this.clock.now();
    let built;
    try {
      // The gateway does not know the session's configured secret words; credential patterns are scrubbed.
      built = buildHistory(view.records(), [], { legacy: view.legacy });
    } catch (error) {
      if (error instanceof StoreCorruptError) throw new FleetError("history_corrupt", `the session history failed its integrity check (${error.message})`);
      throw error;
    }
    const items = built.items.map((item) => JSON.stringify(item));
    let bytes = 0;
    for (const t of items) bytes += Buffer.byteLength(t);
    for (const a of built.attachments.values()) bytes += a.data?.length ?? 0;
    if (bytes > this.limits.historySpoolBytes) throw new FleetError("fleet_capacity_exceeded", "the session's history is larger than the gateway's history spool");
    const id = newId("chk", now);
    const capture: Capture = { id, sessionId, token: signer.sign("chk", { c: id }), expiresAt: now + this.limits.checkpointTtlMs, sourceRevision: view.meta.sourceRevision, items, attachments: built.attachments, bytes };
    this.evict(now, bytes);
    this.captures.set(id, capture);
    return capture;
  }

  /** Drops expired captures, then the oldest while the count or the spool bound requires. */
  private evict(now: number, incoming: number): void {
    for (const [id, c] of this.captures) if (c.expiresAt <= now) this.captures.delete(id);
    let used = this.retained.bytes;
    for (const [id, c] of this.captures) {
      if (this.captures.size < this.limits.checkpointsRetained && used + incoming <= this.limits.historySpoolBytes) break;
      this.captures.delete(id);
      used -= c.bytes;
    }
  }

  private lookup(signer: TokenSigner, token: string, view: StoreView): Capture {
    let id: string;
    try {
      id = signer.verify("chk", token).c!;
    } catch (error) {
      if (error instanceof TokenError && error.problem === "wrong_epoch") throw new FleetError("snapshot_expired", "the checkpoint is from an earlier gateway run; request history again for a new one");
      throw new FleetError("invalid_checkpoint", "the checkpoint is not one this gateway issued for this session");
    }
    const capture = this.captures.get(id);
    if (!capture || capture.expiresAt <= this.clock.now()) {
      this.captures.delete(id);
      throw new FleetError("snapshot_expired", "the checkpoint has expired or was evicted; request history again for a new one");
    }
    if (capture.sourceRevision !== view.meta.sourceRevision) throw new FleetError("history_source_changed", "the session changed after this checkpoint was captured; discard its tokens and start a new read");
    return capture;
  }

  private pageOffset(signer: TokenSigner, token: string, capture: Capture): number {
    try {
      const p = signer.verify("pag", token);
      const offset = Number(p.o);
      if (p.c !== capture.id || !Number.isSafeInteger(offset) || offset < 0 || offset > capture.items.length) throw new TokenError("forged");
      return offset;
    } catch (error) {
      if (error instanceof TokenError) throw new FleetError("invalid_checkpoint", "the page token does not belong to this checkpoint; use next_page as returned");
      throw error;
    }
  }
}
