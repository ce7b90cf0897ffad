// The syntax highlighter behind code blocks: lowlight (highlight.js grammars, its 37 common languages)
// turned into lines of classed tokens. Loaded on demand (tui/highlight.ts), so the first frame does not
// wait for the grammars.
import type { Element, Root, RootContent } from "hast";
import { common, createLowlight } from "lowlight";

export interface Token {
  text: string;
  /** The innermost highlight.js class (`keyword`, `string`, `title function_`, ...), or "" for plain text. */
  kind: string;
}

const lowlight = createLowlight(common);

/** The code as lines of tokens, or null when the language is unknown (or missing). */
export function highlightLines(code: string, lang: string): Token[][] | null {
  if (!lang || !lowlight.registered(lang)) return null;
  let tree: Root;
  try {
    tree = lowlight.highlight(lang, code);
  } catch {
    return null;
  }
  const lines: Token[][] = [[]];
  const walk = (nodes: RootContent[], kind: string) => {
    for (const node of nodes) {
      if (node.type === "text") {
        node.value.split("\n").forEach((part, i) => {
          if (i > 0) lines.push([]);
          if (part) lines.at(-1)!.push({ text: part, kind });
        });
      } else if (node.type === "element") {
        const classes = ((node as Element).properties.className as string[] | undefined) ?? [];
        const own = classes.map((c) => c.replace(/^hljs-/, "")).join(" ");
        walk(node.children, own || kind);
      }
    }
  };
  walk(tree.children, "");
  return lines;
}
