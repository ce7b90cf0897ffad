// A small markdown-to-Ink renderer for assistant text: fenced code blocks, headings, bullet and numbered
// lists, block quotes, rules, and inline code, bold, italics and links. It is line based and forgiving,
// so half-streamed text (an unclosed fence, a lone `**`) renders sensibly while it grows.
import { Box, Text } from "ink";
import { memo, type ReactNode } from "react";
import { Wrapped } from "./components/wrapped.tsx";
import { useTheme, type Palette } from "./theme/theme.ts";

export type MdBlock =
  | { type: "code"; lang: string; lines: string[] }
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

function InlineText({ text, color }: { text: string; color?: string }): ReactNode {
  const c = useTheme().colors;
  return (
    <Wrapped color={color} wrap="wrap">
      {parseInline(text).map((s, i) => {
        if (s.style === "code") return <Text key={i} color={c.code}>{s.text}</Text>;
        if (s.style === "bold") return <Text key={i} bold>{s.text}</Text>;
        if (s.style === "italic") return <Text key={i} italic>{s.text}</Text>;
        if (s.style === "link") return <Text key={i} underline color={c.link}>{s.text}<Text dimColor>{` (${s.url})`}</Text></Text>;
        return s.text;
      })}
    </Wrapped>
  );
}

function renderBlock(b: MdBlock, key: number, c: Palette): ReactNode {
  switch (b.type) {
    case "code":
      return (
        <Box key={key} flexDirection="column" paddingLeft={2}>
          {b.lang ? <Text dimColor>{b.lang}</Text> : null}
          {b.lines.map((l, i) => (
            <Text key={i} color={c.code_block}>{l || " "}</Text>
          ))}
        </Box>
      );
    case "heading":
      return <Text key={key} bold underline={b.level === 1}>{b.text}</Text>;
    case "item":
      return (
        <Box key={key} paddingLeft={b.indent * 2}>
          <Text>{/^\d/.test(b.marker) ? `${b.marker} ` : "• "}</Text>
          <InlineText text={b.text} />
        </Box>
      );
    case "quote":
      return (
        <Box key={key}>
          <Text dimColor>│ </Text>
          <InlineText text={b.text} color={c.muted} />
        </Box>
      );
    case "rule":
      return <Text key={key} dimColor>{"─".repeat(20)}</Text>;
    case "blank":
      return <Text key={key}> </Text>;
    case "para":
      return <InlineText key={key} text={b.text} />;
  }
}

export const Markdown = memo(function Markdown({ text }: { text: string }): ReactNode {
  const c = useTheme().colors;
  return <Box flexDirection="column">{parseMarkdown(text).map((b, i) => renderBlock(b, i, c))}</Box>;
});
