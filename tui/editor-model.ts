// The prompt editor's text and cursor as plain values: every edit returns a new state, so the component
// stays a thin key map and the rules are testable without a terminal.

export interface EditorState {
  text: string;
  /** Offset into text (0..text.length). */
  cursor: number;
}

export const EMPTY_EDITOR: EditorState = { text: "", cursor: 0 };

export function editorOf(text: string): EditorState {
  return { text, cursor: text.length };
}

export function insert(s: EditorState, chunk: string): EditorState {
  // Terminals send CR for line breaks inside pastes; the prompt keeps plain LF.
  const clean = chunk.replace(/\r\n?/g, "\n");
  return { text: s.text.slice(0, s.cursor) + clean + s.text.slice(s.cursor), cursor: s.cursor + clean.length };
}

export function backspace(s: EditorState): EditorState {
  if (s.cursor === 0) return s;
  return { text: s.text.slice(0, s.cursor - 1) + s.text.slice(s.cursor), cursor: s.cursor - 1 };
}

export function deleteForward(s: EditorState): EditorState {
  if (s.cursor >= s.text.length) return s;
  return { text: s.text.slice(0, s.cursor) + s.text.slice(s.cursor + 1), cursor: s.cursor };
}

export function moveBy(s: EditorState, delta: number): EditorState {
  return { ...s, cursor: Math.max(0, Math.min(s.text.length, s.cursor + delta)) };
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf("\n", at - 1) + 1;
}

function lineEnd(text: string, at: number): number {
  const nl = text.indexOf("\n", at);
  return nl < 0 ? text.length : nl;
}

export function home(s: EditorState): EditorState {
  return { ...s, cursor: lineStart(s.text, s.cursor) };
}

export function end(s: EditorState): EditorState {
  return { ...s, cursor: lineEnd(s.text, s.cursor) };
}

/** Deletes from the cursor back to the start of its line (Ctrl+U). */
export function killLineBack(s: EditorState): EditorState {
  const start = lineStart(s.text, s.cursor);
  return { text: s.text.slice(0, start) + s.text.slice(s.cursor), cursor: start };
}

/** Moves to the line above or below at the same column; null when there is none (history takes over). */
export function moveLine(s: EditorState, dir: -1 | 1): EditorState | null {
  const start = lineStart(s.text, s.cursor);
  const column = s.cursor - start;
  if (dir < 0) {
    if (start === 0) return null;
    const prevStart = lineStart(s.text, start - 1);
    return { ...s, cursor: Math.min(prevStart + column, start - 1) };
  }
  const endAt = lineEnd(s.text, s.cursor);
  if (endAt >= s.text.length) return null;
  const nextStart = endAt + 1;
  return { ...s, cursor: Math.min(nextStart + column, lineEnd(s.text, nextStart)) };
}

/** Prompt history: Up walks back from the newest; Down walks forward and ends on the draft being typed. */
export class PromptHistory {
  private entries: string[];
  private at: number;
  private draft = "";

  /** `saved`: earlier prompts (oldest first); `onAdd` keeps a new one (a history file). */
  constructor(
    saved: string[] = [],
    private readonly onAdd?: (text: string) => void,
    private readonly limit = 500,
  ) {
    this.entries = saved.slice(-limit);
    this.at = this.entries.length;
  }

  add(text: string): void {
    if (text.trim() && this.entries.at(-1) !== text) {
      this.entries.push(text);
      this.onAdd?.(text);
    }
    if (this.entries.length > this.limit) this.entries.shift();
    this.at = this.entries.length;
  }

  previous(current: string): string | null {
    if (this.at === 0) return null;
    if (this.at === this.entries.length) this.draft = current;
    return this.entries[--this.at]!;
  }

  next(): string | null {
    if (this.at >= this.entries.length) return null;
    this.at++;
    return this.at === this.entries.length ? this.draft : this.entries[this.at]!;
  }
}
