// The view's rebindable keys (`tui.keys`, src/config/schema/tui-keys.ts): each action's bindings, how a
// key press from Ink matches one, and the names /help shows. Problems (an unknown action, a malformed key,
// one key bound to two actions) leave the default in place and are reported once on screen.
import { KEY_PATTERN, TUI_KEY_ACTIONS, type TuiKeyAction } from "../../src/config/schema/tui-keys.ts";

export interface KeyBinding {
  ctrl: boolean;
  meta: boolean;
  shift: boolean;
  /** A lowercase letter, or enter, escape, home, end. */
  name: string;
}

export type KeyMap = Record<TuiKeyAction, KeyBinding[]>;

/** What Ink's useInput reports for a key press (the fields read here). */
export interface InkKey {
  ctrl: boolean;
  meta: boolean;
  shift: boolean;
  return: boolean;
  escape: boolean;
  home?: boolean;
  end?: boolean;
}

const PATTERN = new RegExp(KEY_PATTERN);
/** Keys the view keeps for itself: Enter sends, Ctrl+C interrupts or detaches, Tab completes; Ctrl+M, Ctrl+I and Ctrl+H are Enter, Tab and Backspace to a terminal. */
const FIXED = new Set(["ctrl+c", "ctrl+m", "ctrl+i", "ctrl+h"]);

export function parseKey(spec: string): KeyBinding {
  const parts = spec.split("+");
  const name = parts.at(-1)!;
  return { ctrl: parts.includes("ctrl"), meta: parts.includes("alt"), shift: parts.includes("shift"), name };
}

export function keyName(b: KeyBinding): string {
  const name = b.name.length === 1 ? b.name.toUpperCase() : b.name === "escape" ? "Esc" : b.name[0]!.toUpperCase() + b.name.slice(1);
  return [b.ctrl ? "Ctrl" : "", b.meta ? "Alt" : "", b.shift ? "Shift" : "", name].filter(Boolean).join("+");
}

export function pressed(b: KeyBinding, input: string, key: InkKey): boolean {
  switch (b.name) {
    case "enter":
      return key.return && (b.meta ? key.meta : true) && (b.shift ? key.shift : true) && (b.meta || b.shift);
    case "escape":
      return key.escape;
    case "home":
      return key.home === true;
    case "end":
      return key.end === true;
  }
  if (b.ctrl) return (key.ctrl && input === b.name) || (b.name === "j" && input === "\n");
  return key.meta && !key.ctrl && input === b.name;
}

export function matches(map: KeyMap, action: TuiKeyAction, input: string, key: InkKey): boolean {
  return map[action].some((b) => pressed(b, input, key));
}

export const DEFAULT_KEYS: KeyMap = Object.fromEntries(Object.entries(TUI_KEY_ACTIONS).map(([a, d]) => [a, d.keys.map(parseKey)])) as KeyMap;

/** The key map of a `tui.keys` value (as written in the config), with what was wrong in it. */
export function resolveKeys(value: unknown): { keys: KeyMap; problems: string[] } {
  const keys: KeyMap = { ...DEFAULT_KEYS };
  const problems: string[] = [];
  if (value === null || value === undefined) return { keys, problems };
  if (typeof value !== "object" || Array.isArray(value)) return { keys, problems: ["tui.keys must be a mapping of action: key (docs/tui.md#keys); the default keys are used"] };
  const actions = Object.keys(TUI_KEY_ACTIONS) as TuiKeyAction[];
  for (const [action, raw] of Object.entries(value as Record<string, unknown>)) {
    if (!actions.includes(action as TuiKeyAction)) {
      problems.push(`tui.keys.${action} is not an action; allowed: ${actions.join(", ")}`);
      continue;
    }
    if (raw === null) continue;
    const specs = typeof raw === "string" ? [raw] : Array.isArray(raw) ? raw : null;
    const bad = specs === null ? [String(raw)] : specs.filter((s) => typeof s !== "string" || !PATTERN.test(s) || FIXED.has(s));
    // An empty list unbinds the action.
    if (specs === null || bad.length) {
      problems.push(`tui.keys.${action}: '${bad.join("', '")}' is not a key the view can rebind (ctrl+LETTER, alt+LETTER, alt+enter, shift+enter, escape, home, end; not ${[...FIXED].join(", ")}); its default is used`);
      continue;
    }
    keys[action as TuiKeyAction] = (specs as string[]).map(parseKey);
  }
  // One key, two actions: the configured action keeps it, a default binding of another action gives it up.
  const configured = new Set(Object.keys(value as object));
  const owner = new Map<string, TuiKeyAction>();
  for (const action of [...actions].sort((a, b) => Number(configured.has(b)) - Number(configured.has(a)))) {
    keys[action] = keys[action].filter((b) => {
      const id = keyName(b);
      const taken = owner.get(id);
      if (!taken) {
        owner.set(id, action);
        return true;
      }
      if (configured.has(action)) problems.push(`tui.keys: ${id} is bound to both ${taken} and ${action}; ${taken} keeps it`);
      return false;
    });
  }
  return { keys, problems };
}

/** `/help`'s line for the rebindable keys: what each does now. */
export function keyHelp(map: KeyMap): string[] {
  return (Object.keys(TUI_KEY_ACTIONS) as TuiKeyAction[]).filter((a) => map[a].length).map((a) => `${map[a].map(keyName).join(" or ")}: ${TUI_KEY_ACTIONS[a].summary}`);
}
