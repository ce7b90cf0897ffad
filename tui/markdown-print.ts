// Printed answers drawn as pre-wrapped ANSI rows: the same screen as <Markdown>'s one Ink element per line
// (same styles, the same wrap-ansi call Ink makes, the same row clean-up as <Wrapped>), but one <Text> for
// a run of lines, so attaching to a long history lays out a few nodes instead of thousands. Code blocks
// and tables stay components (highlighting, table layout); text with control characters or combining marks
// (which Ink rewrites before measuring) is left to <Markdown> as a whole.
import chalk, { foregroundColorNames } from "chalk";
import wrapAnsi from "wrap-ansi";
import { unindentContinuation } from "./components/wrapped.tsx";
import { highlight, tokenColor } from "./highlight.ts";
import { parseInline, parseMarkdown, type MdBlock } from "./markdown-parse.ts";
import type { Palette } from "./theme/theme.ts";

/** Ink's colorize (ink/build/colorize.js) for the forms a palette uses: names, hex, ansi256, rgb. */
export function colorize(text: string, color: string | undefined): string {
  if (!color) return text;
  if ((foregroundColorNames as readonly string[]).includes(color)) return chalk[color as (typeof foregroundColorNames)[number]](text);
  if (color.startsWith("#")) return chalk.hex(color)(text);
  let m: RegExpExecArray | null;
  if ((m = /^ansi256\(\s?(\d+)\s?\)$/.exec(color))) return chalk.ansi256(Number(m[1]))(text);
  if ((m = /^rgb\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)$/.exec(color))) return chalk.rgb(Number(m[1]), Number(m[2]), Number(m[3]))(text);
  return text;
}

/** What <InlineText> squashes to before wrapping. */
function inline(text: string, c: Palette, color?: string): string {
  const body = parseInline(text)
    .map((s) => {
      if (s.style === "code") return colorize(s.text, c.code);
      if (s.style === "bold") return chalk.bold(s.text);
      if (s.style === "italic") return chalk.italic(s.text);
      if (s.style === "link") return chalk.underline(colorize(s.text + chalk.dim(` (${s.url})`), c.link));
      return s.text;
    })
    .join("");
  return colorize(body, color);
}

/** Ink's wrapping of a <Text> `width` columns wide; `unindent`: <Wrapped>'s clean-up of each row. */
export function wrapRows(text: string, width: number, unindent: boolean): string[] {
  const rows = (width > 0 ? wrapAnsi(text, width, { trim: false, hard: true }) : text).split("\n");
  return unindent ? rows.map(unindentContinuation) : rows;
}

/** A mark, then text wrapped under itself (item and quote rows). */
function marked(pad: number, mark: string, text: string, width: number): string[] {
  const room = width - pad - Bun.stringWidth(mark);
  const indent = " ".repeat(pad);
  const hang = " ".repeat(Bun.stringWidth(mark));
  return wrapRows(text, room, true).map((r, i) => (i === 0 ? indent + mark + r : indent + hang + r));
}

function rows(b: MdBlock, width: number, c: Palette): string[] {
  switch (b.type) {
    case "heading": {
      const style = (r: string) => (b.level === 1 ? chalk.underline(chalk.bold(r)) : chalk.bold(r));
      return wrapRows(b.text, width, false).map(style);
    }
    case "item":
      return marked(b.indent * 2, /^\d/.test(b.marker) ? `${b.marker} ` : "• ", inline(b.text, c), width);
    case "quote":
      return marked(0, chalk.dim("│ "), inline(b.text, c, c.muted), width);
    case "rule":
      return [chalk.dim("─".repeat(20))];
    case "blank":
      return [" "];
    case "para":
      return wrapRows(inline(b.text, c), width, true);
    default:
      return [];
  }
}

/** A run of pre-rendered rows (one <Text>), or a block drawn by its component. */
export type PrintedPart = { rows: string } | { block: MdBlock };

/**
 * The answer as parts for a terminal `width` columns wide, or null when it should be drawn by <Markdown>
 * (text Ink would rewrite before measuring, or a width too small to pre-wrap for).
 */
export function printedParts(text: string, width: number, c: Palette): PrintedPart[] | null {
  if (width < 8 || /(?![\n])[\p{Control}\p{Mark}]/u.test(text)) return null;
  const parts: PrintedPart[] = [];
  let run: string[] = [];
  for (const b of parseMarkdown(text)) {
    if (b.type === "code" || b.type === "table") {
      if (run.length) parts.push({ rows: run.join("\n") });
      run = [];
      parts.push({ block: b });
    } else run.push(...rows(b, width, c));
  }
  if (run.length) parts.push({ rows: run.join("\n") });
  return parts;
}

/**
 * A fenced code block as <CodeBlock> draws it `width` columns wide: two columns of padding, the language
 * dimmed, each line one <Text> in the code color with its tokens' colors inside (highlighted when the
 * grammars have loaded, as the component is at the moment it is drawn).
 */
export function codeRows(lang: string, lines: string[], width: number, c: Palette): string[] {
  const room = width - 2;
  const out: string[] = [];
  const text = (content: string, style: (row: string) => string) => {
    for (const r of wrapRows(content, room, false)) out.push(`  ${style(r)}`);
  };
  if (lang) text(lang, chalk.dim);
  const tokens = lang ? highlight(lines.join("\n"), lang) : null;
  const code = (r: string) => colorize(r, c.code_block);
  if (tokens) for (const line of tokens) text(line.length ? line.map((t) => (t.kind ? colorize(t.text, tokenColor(t.kind, c)) : t.text)).join("") : " ", code);
  else for (const l of lines) text(l || " ", code);
  return out;
}

/**
 * A finished answer's rows as the printed conversation draws it `width` columns wide (<PrintedMarkdown>),
 * or null when a part of it is drawn by a component that is not reproduced here (tables) or the whole
 * answer is left to <Markdown> (see printedParts).
 */
export function answerRows(text: string, width: number, c: Palette): string[] | null {
  const parts = printedParts(text, width, c);
  if (!parts) return null;
  const out: string[] = [];
  for (const p of parts) {
    if ("rows" in p) out.push(...p.rows.split("\n"));
    else if (p.block.type === "code") out.push(...codeRows(p.block.lang, p.block.lines, width, c));
    else return null;
  }
  return out;
}
