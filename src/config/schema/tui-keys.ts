// `tui.keys`: the conversation view's rebindable keys. The table is the single source: the schema (what
// the loader accepts and `agent print config-schema` exports), the view's defaults and its /help lines
// are derived from it. Enter (send), Ctrl+C (interrupt / detach) and the arrows are fixed.
import { Type } from "@sinclair/typebox";
import { Nullable } from "./common.ts";

export const TUI_KEY_ACTIONS = {
  newline: { keys: ["alt+enter", "shift+enter", "ctrl+j"], summary: "insert a line break in the prompt" },
  interrupt: { keys: ["escape"], summary: "interrupt the running turn" },
  details: { keys: ["ctrl+o"], summary: "show or hide details (reasoning, full tool output)" },
  detach: { keys: ["ctrl+d"], summary: "detach on an empty prompt (the session keeps running)" },
  external_editor: { keys: ["ctrl+g"], summary: "edit the prompt in $VISUAL or $EDITOR" },
  paste_image: { keys: ["ctrl+v"], summary: "attach the image on the clipboard to the next prompt" },
  line_start: { keys: ["ctrl+a", "home"], summary: "move to the start of the line" },
  line_end: { keys: ["ctrl+e", "end"], summary: "move to the end of the line" },
  clear_line: { keys: ["ctrl+u"], summary: "delete back to the start of the line" },
} as const satisfies Record<string, { keys: readonly string[]; summary: string }>;

export type TuiKeyAction = keyof typeof TUI_KEY_ACTIONS;

/** A key: `ctrl+LETTER`, `alt+LETTER`, `alt+enter`, `shift+enter`, `escape`, `home`, `end`, `f1`..`f12`. */
export const KEY_PATTERN = "^(?:(?:ctrl|alt)\\+[a-z]|(?:alt|shift)\\+enter|escape|home|end)$";

const KeyList = (summary: string, defaults: readonly string[]) =>
  Type.Optional(
    Nullable(
      Type.Union([Type.String({ pattern: KEY_PATTERN }), Type.Array(Type.String({ pattern: KEY_PATTERN }), { uniqueItems: true })], {
        description: `Key or keys that ${summary}; default ${defaults.join(", ")}; [] unbinds it. Forms: ctrl+LETTER, alt+LETTER, alt+enter, shift+enter, escape, home, end.`,
      }),
    ),
  );

export const TuiKeys = Type.Object(
  Object.fromEntries(Object.entries(TUI_KEY_ACTIONS).map(([action, a]) => [action, KeyList(a.summary, a.keys)])) as Record<TuiKeyAction, ReturnType<typeof KeyList>>,
  { additionalProperties: false, description: "Rebinds the conversation view's keys (docs/tui.md#keys). A key bound to two actions is a config error." },
);
