// The picker's tables: aligned columns fitted to the terminal's width. A line too wide shrinks the widest
// shrinkable column one cell at a time, never below its `min`, and a cut cell ends in "…"; columns without
// a `min` keep their width (a line that still does not fit is cut at the edge instead of wrapping).
// The selected row is marked `›`; a `dim` row is drawn faint (a session whose host is offline).
import { Box, Text, useWindowSize } from "ink";
import type { ReactNode } from "react";
import { useTheme } from "../theme/theme.ts";

export interface Column {
  title: string;
  /** The narrowest this column gets when the line is too wide; absent: never shrunk. */
  min?: number;
}

export interface Row {
  id: string;
  cells: string[];
  dim?: boolean;
}

export interface TableProps {
  columns: Column[];
  rows: Row[];
  selected: number;
  /** Rows shown at once; the list scrolls around the selection. */
  window: number;
  empty: string;
}

const MARK = 2;
const GAP = 2;

export function Table({ columns, rows, selected, window, empty }: TableProps): ReactNode {
  const c = useTheme().colors;
  const width = useWindowSize().columns;
  if (rows.length === 0) return <Text dimColor>{`  ${empty}`}</Text>;
  const widths = fitWidths(
    columns.map((col, i) => Math.max(Bun.stringWidth(col.title), ...rows.map((r) => Bun.stringWidth(r.cells[i]!)))),
    columns.map((col) => col.min),
    width - MARK - GAP * (columns.length - 1),
  );
  const line = (cells: string[]) => cells.map((cell, i) => fitCell(cell, widths[i]!)).join(" ".repeat(GAP));
  const start = Math.min(Math.max(0, selected - Math.floor(window / 2)), Math.max(0, rows.length - window));
  const shown = rows.slice(start, start + window);
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">{`  ${line(columns.map((col) => col.title))}`}</Text>
      {shown.map((r, i) =>
        start + i === selected ? (
          <Text key={r.id} color={c.selection} bold dimColor={r.dim} wrap="truncate-end">{`› ${line(r.cells)}`}</Text>
        ) : (
          <Text key={r.id} dimColor={r.dim} wrap="truncate-end">{`  ${line(r.cells)}`}</Text>
        ),
      )}
      {rows.length > window ? <Text dimColor>{`  ${start + 1}-${start + shown.length} of ${rows.length}`}</Text> : null}
    </Box>
  );
}

/** Column widths within `budget` cells: the widest column above its minimum gives up a cell until the line fits. */
export function fitWidths(natural: number[], mins: (number | undefined)[], budget: number): number[] {
  const widths = [...natural];
  let excess = widths.reduce((a, b) => a + b, 0) - budget;
  while (excess > 0) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      const min = mins[i];
      if (min !== undefined && widths[i]! > min && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    }
    if (widest < 0) break;
    widths[widest] = widths[widest]! - 1;
    excess--;
  }
  return widths;
}

/** `text` padded to `width` cells, or cut to `width - 1` cells and "…". */
export function fitCell(text: string, width: number): string {
  const w = Bun.stringWidth(text);
  if (w <= width) return text + " ".repeat(width - w);
  let out = "";
  let used = 0;
  for (const ch of text) {
    const cw = Bun.stringWidth(ch);
    if (used + cw > width - 1) break;
    out += ch;
    used += cw;
  }
  return `${out}…${" ".repeat(width - 1 - used)}`;
}
