// The multi-line prompt editor. Enter sends; Alt+Enter, Shift+Enter (where the terminal reports it) and
// Ctrl+J insert a line break; pasted text (bracketed paste) is inserted verbatim, line breaks included,
// and never sends. Up/Down move between lines, and past the first/last line walk the prompt history.
import { Box, Text, useInput, usePaste } from "ink";
import type { ReactNode } from "react";
import { backspace, deleteForward, EMPTY_EDITOR, end, home, insert, killLineBack, moveBy, moveLine, type EditorState } from "../editor-model.ts";
import { DEFAULT_KEYS, matches, type KeyMap } from "../keys/keymap.ts";
import { useTheme, type Palette } from "../theme/theme.ts";

export interface PromptEditorProps {
  value: EditorState;
  /** Applies an edit to the CURRENT state (several keys can arrive before the next render). */
  onEdit(edit: (current: EditorState) => EditorState): void;
  onSubmit(text: string): void;
  /** Up on the first line: an older prompt (or a queued input to take back), null to stay. */
  onHistory(dir: -1 | 1): void;
  active: boolean;
  placeholder: string;
  /** An open completion menu takes Up, Down, Tab, Enter and Esc. */
  menu?: { move(dir: -1 | 1): void; /** false: nothing to pick, Enter sends */ accept(): boolean; close(): void } | null;
  /** The rebindable keys (tui.keys): line break, line start and end, clear the line. */
  keys?: KeyMap;
}

export function PromptEditor({ value, onEdit, onSubmit, onHistory, active, placeholder, menu, keys = DEFAULT_KEYS }: PromptEditorProps): ReactNode {
  usePaste((text) => onEdit((v) => insert(v, text)), { isActive: active });
  useInput(
    (input, key) => {
      if (menu) {
        if (key.upArrow) return menu.move(-1);
        if (key.downArrow) return menu.move(1);
        if (key.tab) return void menu.accept();
        if (key.escape) return menu.close();
        if (key.return && !key.meta && !key.shift && menu.accept()) return;
      }
      if (matches(keys, "newline", input, key)) return onEdit((v) => insert(v, "\n"));
      if (key.return) {
        // A trailing backslash continues the line, as in a shell.
        if (value.text.endsWith("\\") && value.cursor === value.text.length) return onEdit((v) => ({ text: `${v.text.slice(0, -1)}\n`, cursor: v.text.length }));
        if (value.text.trim()) onSubmit(value.text);
        return;
      }
      if (key.upArrow) return moveOr(moveLine(value, -1), () => onHistory(-1));
      if (key.downArrow) return moveOr(moveLine(value, 1), () => onHistory(1));
      if (key.leftArrow) return onEdit((v) => moveBy(v, -1));
      if (key.rightArrow) return onEdit((v) => moveBy(v, 1));
      if (matches(keys, "line_start", input, key)) return onEdit(home);
      if (matches(keys, "line_end", input, key)) return onEdit(end);
      if (matches(keys, "clear_line", input, key)) return onEdit(killLineBack);
      if (key.backspace) return onEdit(backspace);
      if (key.delete || (key.ctrl && input === "d")) return onEdit(deleteForward);
      if (key.ctrl || key.meta || key.escape || key.tab || !input) return;
      // Typed text and Enter can arrive in one read (fast typing over a slow link, a script driving the
      // terminal). Pastes come bracketed (usePaste above), so a CR here is an Enter press.
      if (input.length > 1 && input.includes("\r")) return typedWithEnter(input);
      // A control key that came in one read with typed text (an unbound Ctrl+G before `!`) is not text.
      const text = input.replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g, "");
      if (text) onEdit((v) => insert(v, text));
    },
    { isActive: active },
  );
  /** Each CR of `input` acts as Enter on what was typed before it; the rest stays in the editor. */
  function typedWithEnter(input: string) {
    const parts = input.split(/\r\n?/);
    let state = value;
    parts.forEach((part, i) => {
      state = insert(state, part);
      if (i === parts.length - 1) return;
      if (state.text.endsWith("\\") && state.cursor === state.text.length) state = { text: `${state.text.slice(0, -1)}\n`, cursor: state.text.length };
      else if (state.text.trim()) {
        onSubmit(state.text);
        state = EMPTY_EDITOR;
      }
    });
    onEdit(() => state);
  }
  function moveOr(next: EditorState | null, otherwise: () => void) {
    if (next) onEdit(() => next);
    else otherwise();
  }
  const c = useTheme().colors;
  return (
    <Box borderStyle="round" borderColor={active ? c.prompt : c.muted} paddingX={1} flexDirection="column">
      {renderLines(value, placeholder, active, c)}
    </Box>
  );
}

function renderLines(value: EditorState, placeholder: string, active: boolean, c: Palette): ReactNode[] {
  if (!value.text) {
    return [
      <Text key={0}>
        <Text color={c.prompt}>{"› "}</Text>
        {active ? <Text inverse>{placeholder.slice(0, 1) || " "}</Text> : null}
        <Text dimColor>{active ? placeholder.slice(1) : placeholder}</Text>
      </Text>,
    ];
  }
  const out: ReactNode[] = [];
  let offset = 0;
  value.text.split("\n").forEach((line, i) => {
    const from = offset;
    offset += line.length + 1;
    const prefix = <Text color={c.prompt}>{i === 0 ? "› " : "  "}</Text>;
    const at = value.cursor - from;
    if (!active || at < 0 || at > line.length) {
      out.push(<Text key={i}>{prefix}{line}</Text>);
      return;
    }
    out.push(
      <Text key={i}>
        {prefix}
        {line.slice(0, at)}
        <Text inverse>{line[at] ?? " "}</Text>
        {line.slice(at + 1)}
      </Text>,
    );
  });
  return out;
}
