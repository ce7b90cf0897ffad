// Stopped-session public history (feature session.history.v1). The first request captures an immutable
// checkpoint (10 minutes, 8 retained, a shared spool bound); pages of at most 256 items / 2 MiB carry
// signed next_page tokens; attachments are read in base64 chunks by adjacent ranges.
import type { HistoryPage } from "../protocol/daemon-responses.ts";
import { ProtocolError } from "../protocol/errors.ts";
import { TokenError, type TokenSigner } from "../protocol/tokens.ts";
import { newId } from "../util/ids.ts";
import { buildHistory, type CapturedAttachment } from "./history-items.ts";
import type { DaemonLimits } from "./limits.ts";
import { StoreCorruptError, type SessionStore } from "./store/index.ts";

interface Capture {
  id: string;
  token: string;
  expiresAt: number;
  sourceRevision: number;
  /** Each item's JSON text. */
  items: string[];
  attachments: Map<string, CapturedAttachment>;
  bytes: number;
}

/** Raw bytes per attachment chunk: their base64 fills the 8 MiB response bound. */
export function maxChunkBytes(limits: DaemonLimits): number {
  return Math.floor(limits.attachmentResponseBytes / 4) * 3;
}

export class HistoryService {
  private captures = new Map<string, Capture>();
  private latest: Capture | null = null;

  constructor(
    private readonly store: SessionStore,
    private readonly signer: TokenSigner,
    private readonly now: () => number,
    private readonly limits: DaemonLimits,
    private readonly secrets: () => readonly string[] = () => [],
  ) {}

  latestToken(): string | null {
    const c = this.latest;
    return c && this.captures.has(c.id) && c.expiresAt > this.now() ? c.token : null;
  }

  latestTotal(): number {
    return this.latestToken() ? this.latest!.items.length : 0;
  }

  page(query: { checkpoint?: string; page?: string }): HistoryPage {
    this.requireStopped();
    let capture: Capture;
    let offset = 0;
    if (query.checkpoint === undefined) {
      if (query.page !== undefined) throw new ProtocolError("invalid_checkpoint", undefined, "a page token needs the checkpoint it came with");
      capture = this.capture();
    } else {
      capture = this.lookup(query.checkpoint);
      if (query.page !== undefined) offset = this.pageOffset(query.page, capture);
    }
    const items: HistoryPage["items"] = [];
    let bytes = 0;
    let i = offset;
    for (; i < capture.items.length && items.length < this.limits.historyPageItems; i++) {
      const text = capture.items[i]!;
      if (items.length > 0 && bytes + text.length > this.limits.historyPageBytes - 4096) break;
      bytes += text.length;
      items.push(JSON.parse(text));
    }
    const next_page = i < capture.items.length ? this.signer.sign("pag", { c: capture.id, o: String(i) }) : null;
    return { version: 1, session_id: this.store.id, checkpoint: capture.token, total_items: capture.items.length, items, next_page };
  }

  attachment(artifactId: string, query: { checkpoint?: string; offset?: number; length?: number }) {
    this.requireStopped();
    if (query.checkpoint === undefined) throw new ProtocolError("invalid_checkpoint", undefined, "attachment reads need the checkpoint of the history that advertised them");
    const capture = this.lookup(query.checkpoint);
    const artifact = capture.attachments.get(artifactId);
    if (!artifact) throw new ProtocolError("attachment_not_found", undefined, `the checkpoint does not advertise attachment '${artifactId}'`);
    if (!artifact.data) throw new ProtocolError("history_unavailable", undefined, `attachment '${artifactId}' is not retrievable (render it as unavailable)`);
    const total = artifact.data.length;
    const offset = query.offset ?? 0;
    const length = query.length ?? Math.min(maxChunkBytes(this.limits), total - offset);
    if (length > maxChunkBytes(this.limits)) throw new ProtocolError("attachment_too_large", undefined, `length ${length} is over the ${maxChunkBytes(this.limits)}-byte chunk bound; request a smaller range`);
    if (length <= 0) throw new ProtocolError("attachment_range_invalid", undefined, "length must be at least 1");
    if (offset >= total) throw new ProtocolError("attachment_range_invalid", undefined, `offset ${offset} is beyond the attachment (${total} bytes)`);
    if (offset + length > total) throw new ProtocolError("attachment_range_invalid", undefined, `the range ${offset}+${length} overflows the attachment (${total} bytes)`);
    return {
      artifact_id: artifactId,
      media_type: artifact.mediaType,
      total_length: total,
      offset,
      data_base64: artifact.data.subarray(offset, offset + length).toString("base64"),
    };
  }

  private requireStopped(): void {
    const meta = this.store.meta();
    if (meta.state === "running") throw new ProtocolError("history_requires_stopped", undefined, "history is served once the session is stopped");
    if (meta.state !== "stopped" || !meta.finalized) throw new ProtocolError("history_not_finalized", undefined, "the session is stopping; history is served once it is finalized");
  }

  private capture(): Capture {
    const now = this.now();
    let built;
    try {
      built = buildHistory(this.store.journal.all(), this.secrets());
    } catch (error) {
      if (error instanceof StoreCorruptError) throw new ProtocolError("history_corrupt", undefined, `the session history failed its integrity check (${error.message})`);
      throw error;
    }
    const id = newId("chk", now);
    const items = built.items.map((item) => JSON.stringify(item));
    let bytes = items.reduce((n, t) => n + t.length, 0);
    for (const a of built.attachments.values()) bytes += a.data?.length ?? 0;
    if (bytes > this.limits.historySpoolBytes) throw new ProtocolError("snapshot_capacity_exceeded", undefined, "the history is larger than the history spool");
    const capture: Capture = {
      id,
      token: this.signer.sign("chk", { c: id }),
      expiresAt: now + this.limits.checkpointTtlMs,
      sourceRevision: this.store.meta().sourceRevision,
      items,
      attachments: built.attachments,
      bytes,
    };
    this.evict(now, bytes);
    this.captures.set(id, capture);
    this.latest = capture;
    return capture;
  }

  /** Drops expired captures, then the oldest ones while the count or the spool bound requires. */
  private evict(now: number, incoming: number): void {
    for (const [id, c] of this.captures) if (c.expiresAt <= now) this.captures.delete(id);
    let used = [...this.captures.values()].reduce((n, c) => n + c.bytes, 0);
    for (const [id, c] of this.captures) {
      if (this.captures.size < this.limits.checkpointsRetained && used + incoming <= this.limits.historySpoolBytes) break;
      this.captures.delete(id);
      used -= c.bytes;
    }
  }

  private lookup(token: string): Capture {
    let id: string;
    try {
      id = this.signer.verify("chk", token).c!;
    } catch (error) {
      if (error instanceof TokenError && error.problem === "wrong_epoch") throw new ProtocolError("checkpoint_expired", undefined, "the checkpoint is from an earlier daemon epoch; request history again for a new one");
      throw new ProtocolError("invalid_checkpoint", undefined, "the checkpoint is not one this daemon issued");
    }
    const capture = this.captures.get(id);
    if (!capture || capture.expiresAt <= this.now()) {
      this.captures.delete(id);
      throw new ProtocolError("checkpoint_expired", undefined, "the checkpoint has expired or was evicted; request history again for a new one");
    }
    if (capture.sourceRevision !== this.store.meta().sourceRevision) throw new ProtocolError("history_source_changed", undefined, "the session changed after this checkpoint was captured; discard its tokens and start a new read");
    return capture;
  }

  private pageOffset(token: string, capture: Capture): number {
    try {
      const p = this.signer.verify("pag", token);
      const offset = Number(p.o);
      if (p.c !== capture.id || !Number.isSafeInteger(offset) || offset < 0 || offset > capture.items.length) throw new TokenError("forged");
      return offset;
    } catch (error) {
      if (error instanceof TokenError) throw new ProtocolError("invalid_checkpoint", undefined, "the page token does not belong to this checkpoint; use next_page as returned");
      throw error;
    }
  }
}
