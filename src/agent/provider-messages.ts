// The conversation as the provider sees it: images only for vision models, reminders as user text,
// the context from its compaction summary or /clear on, and the partial content of a broken attempt as
// the assistant's prefix for the retry.
import type { AssembledResponse, AssistantPart } from "../providers/events.ts";
import type { ConversationMessage, UserPart } from "../providers/request.ts";
import type { Conversation, UserContentPart } from "./conversation.ts";
import { contextEntries, summaryMessageText } from "./compaction/context.ts";

export const IMAGE_OMITTED = "[image omitted: the current model does not accept images]";

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
        })),
      });
    }
  }
  return out;
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
