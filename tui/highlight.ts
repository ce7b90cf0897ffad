// Syntax highlighting for code blocks, loaded lazily: the grammars load after the first frame (or when the
// first code block with a language is drawn), and a block drawn before that is plain. Token kinds map onto
// the theme's palette, so themes and NO_COLOR apply to code as to everything else.
import type { Palette } from "./theme/theme.ts";
import type { Token } from "./highlight-engine.ts";

export type { Token };

let engine: typeof import("./highlight-engine.ts") | null = null;
let loading: Promise<void> | null = null;
const waiting = new Set<() => void>();

/** Starts loading the grammars (once); resolves when they are there. */
export function loadHighlighter(): Promise<void> {
  loading ??= import("./highlight-engine.ts").then((m) => {
    engine = m;
    for (const w of waiting) w();
    waiting.clear();
  });
  return loading;
}

/** Called once when the grammars have loaded (at once if they have). */
export function whenHighlighterLoads(callback: () => void): () => void {
  if (engine) {
    callback();
    return () => {};
  }
  waiting.add(callback);
  void loadHighlighter();
  return () => waiting.delete(callback);
}

/** Whether the grammars are there (a code block printed now is highlighted). */
export function highlighterLoaded(): boolean {
  return engine !== null;
}

/** Lines of tokens, or null: no language, an unknown one, or the grammars not loaded yet. */
export function highlight(code: string, lang: string): Token[][] | null {
  return engine ? engine.highlightLines(code, lang) : null;
}

/** The palette color of a highlight.js token kind (undefined: the code block's own color). */
export function tokenColor(kind: string, c: Palette): string | undefined {
  const k = kind.split(" ")[0]!;
  switch (k) {
    case "keyword":
    case "selector-tag":
    case "doctag":
      return c.accent;
    case "string":
    case "regexp":
    case "addition":
    case "symbol":
      return c.success;
    case "comment":
    case "quote":
      return c.muted;
    case "number":
    case "literal":
    case "built_in":
    case "variable":
    case "template-variable":
      return c.warning;
    case "title":
    case "section":
    case "attr":
    case "attribute":
    case "property":
      return c.link;
    case "type":
    case "class":
    case "params":
      return c.prompt;
    case "meta":
    case "tag":
    case "name":
      return c.diff_hunk;
    case "deletion":
      return c.diff_removed;
    default:
      return c.code_block;
  }
}
