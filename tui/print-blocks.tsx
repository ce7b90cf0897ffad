// The printed conversation as one string, for writing many finished blocks at once (the history printed on
// attach, a reflow's reprint) above the live area instead of through Ink's <Static>, whose output is built
// cell by cell: about 1000 printed lines cost Ink some 150 ms of layout and per-cell output, the string a
// few ms. The rows are the ones <Static> draws for the same blocks at the same width: answers are
// pre-wrapped rows (markdown-print.ts: the styles and wrapping Ink applies, code blocks included); every
// other block, and an answer with a table or with text Ink rewrites, is drawn by its own component through
// Ink's renderToString, the same layout and output code <Static> uses.
import { Box, renderToString } from "ink";
import type { ReactNode } from "react";
import { BlockView } from "./components/block-view.tsx";
import { answerRows } from "./markdown-print.ts";
import { ThemeProvider, type Theme } from "./theme/theme.ts";
import type { Block } from "./view-state.ts";

export interface PrintOptions {
  /** The terminal's width. */
  columns: number;
  theme: Theme;
  /** Ctrl+O's details (reasoning, tool output in full). */
  details: boolean;
}

/** One printed block as the view's <Static> holds it: its own row of the terminal's width. */
export function PrintedBlock({ block, details, columns }: { block: Block; details: boolean; columns: number }): ReactNode {
  return (
    <Box width={columns} flexDirection="column">
      <BlockView block={block} details={details} columns={columns} />
    </Box>
  );
}

/** Rows of a finished answer without a component of its own (a blank row first: the block's top margin). */
function textRows(block: Block, o: PrintOptions): string[] | null {
  if (block.kind !== "text" || !block.done) return null;
  const rows = answerRows(block.text, o.columns, o.theme.colors);
  // Ink trims the spaces that end a row (Output.get); the screen is the same either way, the bytes fewer.
  return rows ? ["", ...rows.map((r) => r.replace(/ +$/, ""))] : null;
}

/** What the components of a run of blocks draw, through Ink's own layout and output. */
function componentRows(blocks: Block[], o: PrintOptions): string[] {
  const drawn = renderToString(
    <ThemeProvider value={o.theme}>
      <Box flexDirection="column" width={o.columns}>
        {blocks.map((b) => (
          <PrintedBlock key={b.id} block={b} details={o.details} columns={o.columns} />
        ))}
      </Box>
    </ThemeProvider>,
    { columns: o.columns },
  );
  return drawn === "" ? [] : drawn.split("\n");
}

/** The blocks' rows, each ended by a newline: what <Static> would write for them. */
export function printBlocks(blocks: readonly Block[], o: PrintOptions): string {
  const rows: string[] = [];
  let run: Block[] = [];
  for (const b of blocks) {
    const own = textRows(b, o);
    if (!own) {
      run.push(b);
      continue;
    }
    if (run.length) rows.push(...componentRows(run, o));
    run = [];
    rows.push(...own);
  }
  if (run.length) rows.push(...componentRows(run, o));
  return rows.length ? `${rows.join("\n")}\n` : "";
}
