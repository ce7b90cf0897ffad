// Prompt history kept across views, like a shell's: one JSON string per line in a 0600 file (prompts may
// hold anything a person typed), the newest HISTORY_KEEP kept. A history that cannot be read or written
// (a read-only home) only means Up finds less; it never stops the conversation.
import { appendFileSync, chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export const HISTORY_KEEP = 500;

export function loadPromptHistory(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    try {
      const entry = JSON.parse(line);
      if (typeof entry === "string") out.push(entry);
    } catch {
      // A torn last line (a crash mid-append) is skipped.
    }
  }
  return out.slice(-HISTORY_KEEP);
}

export function appendPromptHistory(path: string, text: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    appendFileSync(path, `${JSON.stringify(text)}\n`, { mode: 0o600 });
    chmodSync(path, 0o600);
    // Rewrite only now and then: when the file holds twice what is kept.
    if (readFileSync(path, "utf8").split("\n").length > HISTORY_KEEP * 2) {
      writeFileSync(path, loadPromptHistory(path).map((e) => `${JSON.stringify(e)}\n`).join(""), { mode: 0o600 });
    }
  } catch {
    // See the header: history is a convenience.
  }
}
