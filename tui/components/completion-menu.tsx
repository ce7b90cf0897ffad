// The completion menu under the prompt editor: commands with their summaries, files, models with their
// window and price, facets with their description. The chosen row is marked and its description shown
// whole; Up/Down move, Tab or Enter pick, Esc closes.
import { Box, Text } from "ink";
import type { ReactNode } from "react";
import type { CompletionItem } from "../completion.ts";
import { useTheme } from "../theme/theme.ts";

export function CompletionMenu({ items, selected, empty }: { items: CompletionItem[]; selected: number; empty: string | null }): ReactNode {
  const c = useTheme().colors;
  if (!items.length) return empty ? <Text dimColor>{`  ${empty}`}</Text> : null;
  const width = Math.min(40, Math.max(...items.map((i) => i.label.length)));
  return (
    <Box flexDirection="column">
      {items.map((item, i) => (
        <Box key={item.value}>
          <Box width={width + 4} flexShrink={0}>
            <Text color={i === selected ? c.selection : undefined} bold={i === selected} wrap="truncate-end">{`${i === selected ? "❯ " : "  "}${item.label}`}</Text>
          </Box>
          {/* The chosen row's description is shown whole (wrapped in its column); the others stay one row. */}
          <Text dimColor wrap={i === selected ? "wrap" : "truncate-end"}>{item.detail}</Text>
        </Box>
      ))}
      <Text dimColor>{"  Tab or Enter picks · Esc closes"}</Text>
    </Box>
  );
}
