// Which files the tools really changed or read in a stretch of the conversation, for the summary: a
// change counts only when its call completed (a refused, failed or cancelled edit changed nothing).
import type { ConversationEntry } from "../conversation.ts";

/** Tools that change files; what they changed is in their arguments or, for a patch, their result. */
const MUTATING = new Set(["write", "edit", "apply_patch"]);

export interface FilesTouched {
  changed: string[];
  read: string[];
}

export function filesTouched(entries: readonly ConversationEntry[]): FilesTouched {
  const changed = new Set<string>();
  const read = new Set<string>();
  // A call's result is in the tool_results entry after its message (providers may reuse call ids, so
  // each message's calls are matched with the results that follow it, not across the conversation).
  let calls = new Map<string, { name: string; path: string | null }>();
  for (const e of entries) {
    if (e.role === "assistant") {
      calls = new Map();
      for (const p of e.content) if (p.type === "tool_call") calls.set(p.call_id, { name: p.name, path: typeof p.arguments.path === "string" ? p.arguments.path : null });
    } else if (e.role === "tool_results") {
      for (const r of e.results) {
        const call = calls.get(r.call_id);
        if (!call || r.status !== "completed") continue;
        if (MUTATING.has(call.name)) for (const f of call.path ? [call.path] : metadataFiles(r.metadata)) changed.add(f);
        else if (call.name === "read" && call.path) read.add(call.path);
      }
    }
  }
  for (const path of changed) read.delete(path);
  return { changed: [...changed], read: [...read] };
}

/** A patch names its files in its text; its result lists them. */
function metadataFiles(metadata: Record<string, unknown> | undefined): string[] {
  const files = metadata?.files;
  if (Array.isArray(files)) return files.filter((f): f is string => typeof f === "string");
  return typeof metadata?.path === "string" ? [metadata.path] : [];
}
