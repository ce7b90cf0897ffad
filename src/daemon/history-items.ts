// Public history items built from the journal at capture time: payloads with capture-time attribution,
// credentials scrubbed, images moved out to attachments. A record that cannot be read is corruption.
import type { HistoryItem } from "../protocol/daemon-responses.ts";
import { parseRecord, type StoredRecord } from "./store/index.ts";
import { redactText, redactValue } from "../util/redact.ts";

export type { HistoryItem };

export interface CapturedAttachment {
  mediaType: string;
  /** Null when the record references an image whose bytes are not retrievable (rendered as unavailable). */
  data: Buffer | null;
}

const UNKNOWN = "historical_unknown";

/** Attribution names the model like turn_started does: the key, without an effort suffix `(level)`. */
const modelKey = (ref: string) => ref.replace(/\([^)]*\)$/, "") || UNKNOWN;

/**
 * `legacy`: the records come from a store of an older layout read as it is (never migrated by a history
 * read): what secrets its session knew is unknown, so its items say so.
 */
export function buildHistory(records: Iterable<StoredRecord>, secrets: readonly string[], options: { legacy?: boolean } = {}): { items: HistoryItem[]; attachments: Map<string, CapturedAttachment> } {
  const items: HistoryItem[] = [];
  const attachments = new Map<string, CapturedAttachment>();
  let attribution = { facet: UNKNOWN, model: UNKNOWN };
  let turn: string | null = null;
  const coverage: HistoryItem["secret_coverage"] = options.legacy ? "historical_secret_coverage_unknown" : "captured";
  const scrub = <T>(v: T): T => redactValue(v, secrets) as T;
  const image = (media_type: string, data_base64: string) => {
    const bytes = data_base64 ? Buffer.from(data_base64, "base64") : null;
    const id = bytes && bytes.length > 0 ? `att_${new Bun.CryptoHasher("sha256").update(bytes).digest("hex").slice(0, 32)}` : `att_unavailable_${attachments.size + 1}`;
    const data = bytes && bytes.length > 0 ? (media_type.startsWith("text/") ? Buffer.from(redactText(bytes.toString("utf8"), secrets)) : bytes) : null;
    attachments.set(id, { mediaType: media_type, data });
    return { type: "image", artifact_id: id, media_type, unavailable: data === null };
  };
  for (const record of records) {
    const body = parseRecord(record) as Record<string, any>;
    const push = (kind: HistoryItem["kind"], payload: Record<string, unknown>) =>
      items.push({ item_id: `itm_${record.seq}`, seq: String(record.seq), at: record.at, kind, turn_id: turn, attribution: { ...attribution }, secret_coverage: coverage, payload: scrub(payload) });
    switch (record.type) {
      case "turn_started":
        turn = body.turn_id;
        attribution = { facet: body.facet || UNKNOWN, model: body.model || UNKNOWN };
        break;
      // Switches between turns: what follows (notices, a plan handoff, the next prompt) is theirs.
      case "facet_changed":
        attribution = { facet: body.facet, model: modelKey(body.model) };
        break;
      case "model_changed":
        attribution = { ...attribution, model: modelKey(body.model) };
        break;
      case "user_message": {
        const content = (body.message?.content ?? []).map((c: Record<string, string>) => (c.type === "image" ? image(c.media_type ?? "application/octet-stream", c.data_base64 ?? "") : c));
        push("user_message", { message_id: body.message?.id, origin: body.message?.origin, content });
        break;
      }
      case "part_completed":
        push("assistant_part", { message_id: body.message_id, part: body.part });
        break;
      case "tool_call_completed": {
        const { images, ...result } = body.result ?? {};
        const refs = ((images as { media_type: string; data_base64: string }[] | undefined) ?? []).map((i) => image(i.media_type, i.data_base64));
        push("tool_result", { results_message_id: body.results_message_id, result: { ...result, images: refs }, duration_ms: body.duration_ms });
        break;
      }
      case "turn_completed":
        push("turn_completed", { stop_reason: body.stop_reason, usage: body.usage, ...(body.error ? { error: body.error } : {}) });
        turn = null;
        break;
      case "interrogative_opened":
        push("interrogative", { event: "opened", interrogative: body.interrogative });
        break;
      case "interrogative_closed":
        push("interrogative", { event: "closed", id: body.id, outcome: body.outcome, ...(body.answer ? { answer: body.answer } : {}) });
        break;
      case "notice":
        push("notice", { level: body.level, message: body.message });
        break;
      case "context_compacted":
        push("context", { event: "compacted", summary: body.summary, kept_from_message_id: body.kept_from_message_id, tokens_before: body.tokens_before, tokens_after: body.tokens_after, model: body.model });
        break;
      case "compaction_failed":
        push("context", { event: "compaction_failed", error: body.error });
        break;
      case "context_cleared":
        push("context", { event: "cleared", tokens_before: body.tokens_before });
        break;
    }
  }
  return { items, attachments };
}
