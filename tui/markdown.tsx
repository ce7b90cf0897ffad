// A small markdown-to-Ink renderer for assistant text: fenced code blocks (syntax-highlighted), tables,
// headings, bullet and numbered lists, block quotes, rules, and inline code, bold, italics and links. It is line based and forgiving,
// so half-streamed text (an unclosed fence, a lone `**`) renders sensibly while it grows.
import { Box, Text, useWindowSize } from "ink";
import { memo, useEffect, useMemo, useState, type ReactNode } from "react";
import { highlight, tokenColor, whenHighlighterLoads } from "./highlight.ts";
import { Wrapped } from "./components/wrapped.tsx";
import { printedParts } from "./markdown-print.ts";
import { useTheme, type Palette } from "./theme/theme.ts";
import { parseInline, parseMarkdown, type Align, type MdBlock } from "./markdown-parse.ts";

export { parseInline, parseMarkdown, type Align, type Inline, type MdBlock } from "./markdown-parse.ts";

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

/** `width`: the printed conversation's width (what the terminal's is when it is drawn); tables read the terminal's otherwise. */
function renderBlock(b: MdBlock, key: number, c: Palette, width?: number): ReactNode {
  switch (b.type) {
    case "code":
      return <CodeBlock key={key} lang={b.lang} lines={b.lines} />;
    case "table":
      return width ? <TableView key={key} table={b} width={width} /> : <LiveTableView key={key} table={b} />;
    case "heading":
      return <Text key={key} bold underline={b.level === 1}>{b.text}</Text>;
    case "item":
      return (
        <Box key={key} paddingLeft={b.indent * 2}>
          <Text>{/^\d/.test(b.marker) ? `${b.marker} ` : "• "}</Text>
          <Box flexGrow={1} flexBasis={0}>
            <InlineText text={b.text} />
          </Box>
        </Box>
      );
    case "quote":
      return (
        <Box key={key}>
          <Text dimColor>│ </Text>
          <Box flexGrow={1} flexBasis={0}>
            <InlineText text={b.text} color={c.muted} />
          </Box>
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

/** A fenced code block, highlighted once the grammars have loaded (plain until then). */
function CodeBlock({ lang, lines }: { lang: string; lines: string[] }): ReactNode {
  const c = useTheme().colors;
  const [loads, setLoads] = useState(0);
  useEffect(() => (lang ? whenHighlighterLoads(() => setLoads((n) => n + 1)) : undefined), [lang]);
  const code = lines.join("\n");
  const tokens = useMemo(() => (lang ? highlight(code, lang) : null), [code, lang, loads]);
  return (
    <Box flexDirection="column" paddingLeft={2}>
      {lang ? <Text dimColor>{lang}</Text> : null}
      {tokens
        ? tokens.map((line, i) => (
            <Text key={i} color={c.code_block}>
              {line.length ? line.map((t, j) => (t.kind ? <Text key={j} color={tokenColor(t.kind, c)}>{t.text}</Text> : t.text)) : " "}
            </Text>
          ))
        : lines.map((l, i) => (
            <Text key={i} color={c.code_block}>{l || " "}</Text>
          ))}
    </Box>
  );
}

/** What a cell reads as (markup removed), for measuring columns. */
function cellText(text: string): string {
  return parseInline(text)
    .map((s) => (s.style === "link" ? `${s.text} (${s.url})` : s.text))
    .join("");
}

function pad(text: string, width: number, align: Align): string {
  const room = Math.max(0, width - Bun.stringWidth(text));
  if (align === "right") return " ".repeat(room) + text;
  if (align === "center") return " ".repeat(Math.floor(room / 2)) + text + " ".repeat(Math.ceil(room / 2));
  return text + " ".repeat(room);
}

/**
 * A table with box-drawing borders and aligned columns. Too wide for the terminal, each row is drawn as
 * `header: value` lines instead, so nothing is cut and no border breaks across lines.
 */
function LiveTableView({ table }: { table: Extract<MdBlock, { type: "table" }> }): ReactNode {
  return <TableView table={table} width={useWindowSize().columns} />;
}

function TableView({ table, width: columns }: { table: Extract<MdBlock, { type: "table" }>; width: number }): ReactNode {
  const n = table.header.length;
  const rows = table.rows.map((r) => Array.from({ length: n }, (_, i) => cellText(r[i] ?? "")));
  const header = table.header.map(cellText);
  const widths = header.map((h, i) => Math.max(Bun.stringWidth(h), ...rows.map((r) => Bun.stringWidth(r[i]!))));
  const total = widths.reduce((a, w) => a + w + 3, 1);
  if (total > columns) {
    return (
      <Box flexDirection="column">
        {rows.map((r, ri) => (
          <Box key={ri} flexDirection="column" marginBottom={ri < rows.length - 1 ? 1 : 0}>
            {r.map((cell, i) => (
              <Wrapped key={i}>
                <Text bold>{`${header[i]}: `}</Text>
                {cell}
              </Wrapped>
            ))}
          </Box>
        ))}
      </Box>
    );
  }
  const rule = (l: string, m: string, r: string) => l + widths.map((w) => "─".repeat(w + 2)).join(m) + r;
  const line = (cellsOf: string[], bold: boolean) => (
    <Text>
      {"│"}
      {cellsOf.map((cell, i) => (
        <Text key={i}>
          {" "}
          <Text bold={bold}>{pad(cell, widths[i]!, table.align[i]!)}</Text>
          {" │"}
        </Text>
      ))}
    </Text>
  );
  return (
    <Box flexDirection="column">
      <Text dimColor>{rule("┌", "┬", "┐")}</Text>
      {line(header, true)}
      <Text dimColor>{rule("├", "┼", "┤")}</Text>
      {rows.map((r, i) => (
        <Box key={i}>{line(r, false)}</Box>
      ))}
      <Text dimColor>{rule("└", "┴", "┘")}</Text>
    </Box>
  );
}

export const Markdown = memo(function Markdown({ text }: { text: string }): ReactNode {
  const c = useTheme().colors;
  return <Box flexDirection="column">{parseMarkdown(text).map((b, i) => renderBlock(b, i, c))}</Box>;
});

/**
 * A finished answer `width` columns wide, as <Markdown> draws it, with its text lines pre-wrapped into one
 * <Text> per run (see markdown-print.ts): what printing a long history costs is the number of layout nodes.
 */
export const PrintedMarkdown = memo(function PrintedMarkdown({ text, width }: { text: string; width: number }): ReactNode {
  const c = useTheme().colors;
  const parts = printedParts(text, width, c);
  if (!parts) return <Markdown text={text} />;
  return <Box flexDirection="column">{parts.map((p, i) => ("rows" in p ? <Text key={i}>{p.rows}</Text> : renderBlock(p.block, i, c, width)))}</Box>;
});
