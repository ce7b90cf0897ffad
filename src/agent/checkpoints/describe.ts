// One line saying what an /undo or /rewind did, for transcripts (the conversation view, the plain printer).
import type { EngineEvent } from "../events.ts";

export function describeRewound(r: Extract<EngineEvent, { type: "rewound" }>): string {
  const n = r.restored.length;
  const files = r.mode === "conversation" ? "files left as they are" : `${n} file${n === 1 ? "" : "s"} restored${r.kept.length ? `, ${r.kept.length} kept as changed since` : ""}`;
  if (r.action === "undo") return `undid the last turn's file changes: ${files}`;
  return `rewound to before a prompt: ${files}${r.mode === "code" ? "" : "; the model no longer sees the conversation from that prompt on"}`;
}
