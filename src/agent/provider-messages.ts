// The conversation as the provider sees it: images only for vision models (the newest within a
// request's image budget), reminders as user text, the context from its compaction summary or /clear on,
// and the partial content of a broken attempt as the assistant's prefix for the retry.
import type { AssembledResponse, AssistantPart } from "../providers/events.ts";
import type { ConversationMessage, ImagePart, UserPart } from "../providers/request.ts";
import { formatBytes } from "../tools/file-content.ts";
import { MAX_IMAGE_BASE64 } from "../tools/tool.ts";
import type { Conversation, UserContentPart } from "./conversation.ts";
import { contextEntries, summaryMessageText } from "./compaction/context.ts";

export const IMAGE_OMITTED = "[image omitted: the current model does not accept images]";
/**
 * Images one request carries, newest first; older ones become a note. Past 20 images Anthropic refuses
 * any image over 2000 px a side (8000 px below), and its request limit is 32 MB: 20 MiB of base64 leaves
 * room for the rest of a long conversation.
 */
export const MAX_REQUEST_IMAGES = 20;
export const MAX_REQUEST_IMAGE_BASE64 = 20 * 1024 * 1024;
const overBudget = (n: number) =>
  `[${n === 1 ? "image" : `${n} images`} omitted: a request carries only the ${MAX_REQUEST_IMAGES} newest images, at most ${MAX_REQUEST_IMAGE_BASE64 / (1024 * 1024)} MB of them]`;
const tooLarge = (image: ImagePart) =>
  `[image omitted: ${formatBytes(image.data_base64.length)} of base64, over the ${formatBytes(MAX_IMAGE_BASE64)} one image may have]`;

function userParts(content: UserContentPart[], vision: boolean): UserPart[] {
  return content.map((p) => (p.type === "image" && !vision ? { type: "text", text: IMAGE_OMITTED } : p));
}

export function toProviderMessages(conversation: Conversation, supportsVision: boolean): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  // After a compaction the context starts with its summary, then the kept entries.
  const summary = conversation.context?.summary;
  if (summary) out.push({ role: "user", content: [{ type: "text", text: summaryMessageText(summary) }] });
  for (const entry of contextEntries(conversation)) {
    if (entry.role === "user") out.push({ role: "user", content: userParts(entry.content, supportsVision) });
    else if (entry.role === "assistant") {
      const content: AssistantPart[] = entry.content.map((p) =>
        p.type === "tool_call"
          ? { type: "tool_call", id: p.call_id, name: p.name, arguments: p.arguments, ...(p.replay ? { replay: p.replay } : {}) }
          : p.type === "text"
            ? { type: "text", text: p.text }
            : { type: "reasoning", text: p.text, replay: p.replay },
      );
      if (content.length > 0) out.push({ role: "assistant", content });
    } else {
      out.push({
        role: "tool_results",
        results: entry.results.map((r) => ({
          call_id: r.call_id,
          output: r.images?.length && !supportsVision ? `${r.output}\n${IMAGE_OMITTED}` : r.output,
          ...(r.status === "completed" ? {} : { is_error: true }),
          ...(r.images?.length && supportsVision ? { images: r.images.map((i) => ({ type: "image" as const, ...i })) } : {}),
        })),
      });
    }
  }
  return withinImageBudget(out);
}

/**
 * Keeps the newest images that fit MAX_REQUEST_IMAGES and MAX_REQUEST_IMAGE_BASE64; older ones become a
 * note. An image over MAX_IMAGE_BASE64 (a prompt's, or one stored before that cap) is never sent: one
 * refused image would fail every later request of the session.
 */
function withinImageBudget(messages: ConversationMessage[]): ConversationMessage[] {
  let count = 0;
  let bytes = 0;
  let full = false;
  /** The note replacing the image, or null when it is sent. Once one does not fit, no older one goes: the newest, in one run. */
  const omitted = (image: ImagePart): "too_large" | "over_budget" | null => {
    if (image.data_base64.length > MAX_IMAGE_BASE64) return "too_large";
    full ||= count >= MAX_REQUEST_IMAGES || bytes + image.data_base64.length > MAX_REQUEST_IMAGE_BASE64;
    if (full) return "over_budget";
    count++;
    bytes += image.data_base64.length;
    return null;
  };
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "user") {
      for (let j = m.content.length - 1; j >= 0; j--) {
        const p = m.content[j]!;
        const why = p.type === "image" ? omitted(p) : null;
        if (p.type === "image" && why) m.content[j] = { type: "text", text: why === "too_large" ? tooLarge(p) : overBudget(1) };
      }
    } else if (m.role === "tool_results") {
      for (const r of [...m.results].reverse()) {
        if (!r.images) continue;
        const notes: string[] = [];
        let over = 0;
        const kept = r.images.filter((image) => {
          const why = omitted(image);
          if (why === "too_large") notes.push(tooLarge(image));
          if (why === "over_budget") over++;
          return why === null;
        });
        if (kept.length === r.images.length) continue;
        if (over > 0) notes.push(overBudget(over));
        r.output = [r.output, ...notes].filter((t) => t.length > 0).join("\n");
        if (kept.length > 0) r.images = kept;
        else delete r.images;
      }
    }
  }
  return messages;
}

/**
 * The text and replayable reasoning kept from broken attempts, as an assistant prefix. Tool calls of a
 * broken attempt are left out: they have no results, and the model issues them again if still needed.
 */
export function partialPrefix(partial: AssembledResponse | null): ConversationMessage | null {
  if (!partial) return null;
  const content = partial.parts.filter((p) => p.type === "text" || (p.type === "reasoning" && p.replay !== null));
  return content.length > 0 ? { role: "assistant", content } : null;
}
