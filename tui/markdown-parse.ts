// Markdown as the view reads it: blocks (paragraphs, lists, quotes, code, tables) and inline styles. Shared by
// the live renderer (markdown.tsx) and the printed-history renderer (markdown-print.ts).

export type Align = "left" | "center" | "right";

export type MdBlock =
  | { type: "code"; lang: string; lines: string[] }
  | { type: "table"; align: Align[]; header: string[]; rows: string[][] }
  | { type: "heading"; level: number; text: string }
  | { type: "item"; indent: number; marker: string; text: string }
  | { type: "quote"; text: string }
  | { type: "rule" }
  | { type: "para"; text: string }
  | { type: "blank" };

export function parseMarkdown(source: string): MdBlock[] {
  const out: MdBlock[] = [];
  const lines = source.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^\s*(```|~~~)\s*([\w+-]*)/.exec(line);
    if (fence) {
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i]!.trimStart().startsWith(fence[1]!); i++) code.push(lines[i]!);
      out.push({ type: "code", lang: fence[2] ?? "", lines: code });
      continue;
    }
    const table = tableAt(lines, i);
    if (table) {
      out.push(table.block);
      i = table.end - 1;
      continue;
    }
    let m: RegExpExecArray | null;
    if ((m = /^(#{1,6})\s+(.*)$/.exec(line))) out.push({ type: "heading", level: m[1]!.length, text: m[2]! });
    else if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) out.push({ type: "rule" });
    else if ((m = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/.exec(line))) out.push({ type: "item", indent: Math.floor(m[1]!.length / 2), marker: m[2]!, text: m[3]! });
    else if ((m = /^\s*>\s?(.*)$/.exec(line))) out.push({ type: "quote", text: m[1]! });
    else if (line.trim() === "") {
      if (out.length && out.at(-1)!.type !== "blank") out.push({ type: "blank" });
    } else out.push({ type: "para", text: line });
  }
  while (out.at(-1)?.type === "blank") out.pop();
  return out;
}

/** A row's cells: `| a | b |` or `a | b`; `\|` is a literal bar. */
function cells(line: string): string[] {
  const trimmed = line.trim().replace(/^\|/, "").replace(/(?<!\\)\|$/, "");
  return trimmed.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
}

const SEPARATOR = /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/;

/** A GFM table starting at line `i` (a header row, then a separator row), and the line after it. */
function tableAt(lines: string[], i: number): { block: MdBlock; end: number } | null {
  const head = lines[i]!;
  const sep = lines[i + 1];
  if (!head.includes("|") || sep === undefined || !SEPARATOR.test(sep) || !sep.includes("-")) return null;
  const header = cells(head);
  const align = cells(sep).map((c): Align => (c.startsWith(":") && c.endsWith(":") ? "center" : c.endsWith(":") ? "right" : "left"));
  if (header.length !== align.length) return null;
  const rows: string[][] = [];
  let end = i + 2;
  for (; end < lines.length && lines[end]!.includes("|") && lines[end]!.trim(); end++) rows.push(cells(lines[end]!));
  return { block: { type: "table", align, header, rows }, end };
}

export type Inline = { text: string; style?: "code" | "bold" | "italic" | "link"; url?: string };

const INLINE = /(`[^`\n]+`)|(\*\*[^*\n]+\*\*|__[^_\n]+__)|(\*[^*\s][^*\n]*\*|\b_[^_\s][^_\n]*_\b)|(\[[^\]\n]+\]\([^)\s]+\))/g;

export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push({ text: text.slice(last, m.index) });
    const t = m[0];
    if (m[1]) out.push({ text: t.slice(1, -1), style: "code" });
    else if (m[2]) out.push({ text: t.slice(2, -2), style: "bold" });
    else if (m[3]) out.push({ text: t.slice(1, -1), style: "italic" });
    else {
      const link = /^\[([^\]]+)\]\(([^)]+)\)$/.exec(t)!;
      out.push({ text: link[1]!, style: "link", url: link[2]! });
    }
    last = m.index + t.length;
  }
  if (last < text.length) out.push({ text: text.slice(last) });
  return out;
}
