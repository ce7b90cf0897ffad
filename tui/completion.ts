// What the completion menu offers for the text being typed: `/na` at the start of the prompt completes a
// command name, `/model x` and `/facet x` their argument, and `@pa` anywhere (after a space or at the
// start) a file of the project or a tool server's resource (`@server:uri`). Pure functions of the editor's text and cursor, so the rules are testable
// without a terminal.
import type { EditorState } from "./editor-model.ts";
import { fuzzyFilter } from "./fuzzy.ts";

export interface CompletionItem {
  /** What replaces the token (`/model`, `@src/a.ts`, `gpt-5`). */
  value: string;
  /** The first column (a command's usage, a file's path, a model's name). */
  label: string;
  /** The second column (a command's summary, a model's window and price). */
  detail: string;
}

export type CompletionKind = "command" | "file" | "model" | "facet";

/** The token at the cursor that a menu would complete, and where it sits in the text. */
export interface CompletionToken {
  kind: CompletionKind;
  query: string;
  start: number;
  end: number;
}

export function completionToken(editor: EditorState): CompletionToken | null {
  const { text, cursor } = editor;
  const before = text.slice(0, cursor);
  // A command name: the prompt is `/word` so far (not `//`, which sends a slash as text).
  // `:` joins a custom command's folder and name (`/frontend:button`).
  let m = /^\/([\w:-]*)$/.exec(before);
  if (m && !text.slice(cursor).match(/^\S/) && !before.startsWith("//")) return { kind: "command", query: m[1]!, start: 0, end: cursor };
  m = /^\/(model|facet)\s+(\S*)$/.exec(before);
  if (m) return { kind: m[1] as "model" | "facet", query: m[2]!, start: cursor - m[2]!.length, end: cursor + (/^\S*/.exec(text.slice(cursor))?.[0].length ?? 0) };
  m = /(?:^|\s)@([^\s@]*)$/.exec(before);
  if (m) return { kind: "file", query: m[1]!, start: cursor - m[1]!.length - 1, end: cursor + (/^\S*/.exec(text.slice(cursor))?.[0].length ?? 0) };
  return null;
}

export interface CompletionSources {
  commands: { name: string; usage: string; summary: string }[];
  files: readonly string[];
  /** Connected tool servers' resources, offered as `@server:uri` beside the files. */
  resources?: readonly { server: string; uri: string; name: string }[];
  models: { name: string; detail: string }[];
  facets: { name: string; detail: string }[];
}

export const MENU_ROWS = 8;

export function completions(token: CompletionToken, sources: CompletionSources): CompletionItem[] {
  switch (token.kind) {
    case "command":
      return fuzzyFilter(token.query, sources.commands, (c) => c.name, MENU_ROWS).map((c) => ({ value: `/${c.name}`, label: c.usage, detail: c.summary }));
    case "file":
    {
      const rows = [...sources.files.map((f) => ({ key: f, detail: "" })), ...(sources.resources ?? []).map((r) => ({ key: `${r.server}:${r.uri}`, detail: r.name }))];
      return fuzzyFilter(token.query, rows, (r) => r.key, MENU_ROWS).map((r) => ({ value: `@${r.key}`, label: r.key, detail: r.detail }));
    }
    case "model":
    case "facet":
      return fuzzyFilter(token.query, token.kind === "model" ? sources.models : sources.facets, (x) => x.name, MENU_ROWS).map((x) => ({ value: x.name, label: x.name, detail: x.detail }));
  }
}

/**
 * The editor after picking `item` for `token`. A command that takes arguments, and a file, get a space
 * after them so typing goes on.
 */
export function applyCompletion(editor: EditorState, token: CompletionToken, item: CompletionItem, takesArgs: boolean): EditorState {
  const tail = editor.text.slice(token.end);
  const space = (token.kind === "command" ? takesArgs : token.kind === "file") && !tail.startsWith(" ") ? " " : "";
  const text = editor.text.slice(0, token.start) + item.value + space + tail;
  return { text, cursor: token.start + item.value.length + space.length };
}
