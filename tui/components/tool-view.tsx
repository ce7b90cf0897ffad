// One tool call: a header line with the tool and its main argument, a diff for file edits (drawn from
// the call's arguments: replace, patch and write all carry the change), and the result. Output is
// collapsed to a few lines with a hint; Ctrl+O (details) shows more.
import { Box, Text } from "ink";
import { memo, type ReactNode } from "react";
import { patchPaths, PatchSyntaxError } from "../../src/tools/edit/patch-parse.ts";
import { useTheme, type ColorKey } from "../theme/theme.ts";
import type { Block } from "../view-state.ts";
import { WrappedLines } from "./wrapped.tsx";

type ToolBlock = Extract<Block, { kind: "tool" }>;

const COLLAPSED_LINES = 4;
const EXPANDED_LINES = 200;

/** The one argument that says what a call does (command, path, pattern), else compact JSON. */
export function argumentSummary(name: string, args: Record<string, unknown> | null, raw: string): string {
  if (!args) return oneLine(raw);
  for (const key of ["command", "path", "pattern", "url", "query", "goal"]) {
    if (typeof args[key] === "string") return oneLine(args[key] as string);
  }
  if (name === "edit" && typeof args.patch === "string") return patchSummary(args.patch);
  return oneLine(JSON.stringify(args));
}

/** A patch-form edit by the files it touches (what a permission question is about); a long list says how many more. */
function patchSummary(patch: string): string {
  try {
    const paths = patchPaths(patch);
    const shown = [paths[0]!];
    for (const path of paths.slice(1)) {
      if ([...shown, path].join(", ").length > 90) break;
      shown.push(path);
    }
    const more = paths.length - shown.length;
    return oneLine(`${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""} (patch)`);
  } catch (error) {
    if (error instanceof PatchSyntaxError) return "(a patch that does not parse)";
    throw error;
  }
}

function oneLine(text: string, max = 120): string {
  const flat = text.replace(/\s*\n\s*/g, " ⏎ ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export type DiffLine = { sign: "+" | "-" | " " | "@"; text: string };

/** The change a file-editing call makes, as diff lines (null: not an edit). */
export function diffOf(name: string, args: Record<string, unknown> | null): DiffLine[] | null {
  if (!args) return null;
  if (typeof args.old_string === "string" && typeof args.new_string === "string") {
    const minus = args.old_string === "" ? [] : args.old_string.split("\n").map((text): DiffLine => ({ sign: "-", text }));
    return [...minus, ...args.new_string.split("\n").map((text): DiffLine => ({ sign: "+", text }))];
  }
  if (typeof args.patch === "string") {
    return args.patch.split("\n").map((line): DiffLine => {
      if (line.startsWith("@@") || line.startsWith("***") || line.startsWith("---") || line.startsWith("+++")) return { sign: "@", text: line };
      if (line.startsWith("+")) return { sign: "+", text: line.slice(1) };
      if (line.startsWith("-")) return { sign: "-", text: line.slice(1) };
      return { sign: " ", text: line.startsWith(" ") ? line.slice(1) : line };
    });
  }
  if (name === "write" && typeof args.content === "string") return args.content.replace(/\n$/, "").split("\n").map((text): DiffLine => ({ sign: "+", text }));
  return null;
}

/** The first `limit` lines and how many more there are. */
export function clipLines(text: string, limit: number): { lines: string[]; more: number } {
  const lines = text.replace(/\n+$/, "").split("\n");
  return lines.length <= limit ? { lines, more: 0 } : { lines: lines.slice(0, limit), more: lines.length - limit };
}

const STATUS_COLOR: Record<string, ColorKey> = { completed: "success", error: "error", cancelled: "warning", denied: "warning" };

function DiffView({ lines, limit }: { lines: DiffLine[]; limit: number }): ReactNode {
  const c = useTheme().colors;
  const shown = lines.slice(0, limit);
  return (
    <Box flexDirection="column" paddingLeft={2}>
      {shown.map((l, i) => (
        <Text key={i} color={l.sign === "+" ? c.diff_added : l.sign === "-" ? c.diff_removed : l.sign === "@" ? c.diff_hunk : undefined} dimColor={l.sign === " "}>
          {l.sign === "@" ? l.text : `${l.sign} ${l.text}`}
        </Text>
      ))}
      {lines.length > limit ? <Text dimColor>{`… ${lines.length - limit} more lines (Ctrl+O: details)`}</Text> : null}
    </Box>
  );
}

/** The note of a `progress_update` call, while its arguments still stream too. */
export function progressNote(block: ToolBlock): string {
  if (typeof block.args?.text === "string") return block.args.text;
  const m = /"text"\s*:\s*"((?:\\.|[^"\\])*)/.exec(block.argsText);
  if (!m) return "…";
  try {
    return JSON.parse(`"${m[1]!.replace(/\\$/, "")}"`) as string;
  } catch {
    return m[1]!;
  }
}

export const ToolView = memo(function ToolView({ block, details, stale }: { block: ToolBlock; details: boolean; stale?: boolean }): ReactNode {
  // The model's progress note is a status line for the person, not a tool run to inspect.
  if (block.name === "progress_update" && block.result?.status !== "error") return <ProgressNote block={block} />;
  // The plan itself is drawn from its plan_updated record; only a refused update shows as a call.
  if (block.name === "plan" && block.result?.status !== "error") return null;
  return <ToolRun block={block} details={details} stale={stale} />;
});

function ProgressNote({ block }: { block: ToolBlock }): ReactNode {
  const c = useTheme().colors;
  return (
    <Box marginTop={1}>
      <Text color={c.accent}>{"◦ "}</Text>
      <Box flexDirection="column" flexGrow={1} flexBasis={0}>
        <WrappedLines text={progressNote(block)} dimColor />
      </Box>
    </Box>
  );
}

/** A diff line with its number in the file: the old file's for a removed line, the new one's otherwise ("@": a file's name). */
export type NumberedLine = { sign: "+" | "-" | " " | "⋮" | "@"; number: number | null; text: string };

type ResultDiff = { hunks?: { old_start: number; new_start: number; lines: string[] }[]; omitted?: number };

/**
 * The hunks an edit's result carries (`metadata.diff`; a patch over several files: `metadata.diffs`, each
 * with its path), numbered; null when it has none.
 */
export function resultDiff(metadata: Record<string, unknown> | undefined): NumberedLine[] | null {
  const files = Array.isArray(metadata?.diffs) ? (metadata.diffs as (ResultDiff & { path?: string })[]) : metadata?.diff ? [metadata.diff as ResultDiff] : [];
  const out: NumberedLine[] = [];
  for (const diff of files) {
    if (!diff || !Array.isArray(diff.hunks) || diff.hunks.length === 0) continue;
    if (files.length > 1) out.push({ sign: "@", number: null, text: (diff as { path?: string }).path ?? "" });
    let first = true;
    for (const h of diff.hunks) {
      if (!first) out.push({ sign: "⋮", number: null, text: "" });
      first = false;
      let oldLine = h.old_start;
      let newLine = h.new_start;
      for (const l of h.lines) {
        const sign = (l[0] ?? " ") as "+" | "-" | " ";
        out.push({ sign, number: sign === "-" ? oldLine : newLine, text: l.slice(1) });
        if (sign !== "+") oldLine++;
        if (sign !== "-") newLine++;
      }
    }
    if (diff.omitted) out.push({ sign: "⋮", number: null, text: `${diff.omitted} more changed lines` });
  }
  return out.length ? out : null;
}

function NumberedDiffView({ lines, limit }: { lines: NumberedLine[]; limit: number }): ReactNode {
  const c = useTheme().colors;
  const width = String(Math.max(0, ...lines.map((l) => l.number ?? 0))).length;
  return (
    <Box flexDirection="column" paddingLeft={2}>
      {lines.slice(0, limit).map((l, i) =>
        l.sign === "⋮" ? (
          <Text key={i} dimColor>{`${" ".repeat(width)} ⋮ ${l.text}`}</Text>
        ) : l.sign === "@" ? (
          <Text key={i} color={c.diff_hunk} wrap="truncate-end">{l.text}</Text>
        ) : (
          <Text key={i} wrap="truncate-end">
            <Text dimColor>{`${String(l.number).padStart(width)} `}</Text>
            <Text color={l.sign === "+" ? c.diff_added : l.sign === "-" ? c.diff_removed : undefined} dimColor={l.sign === " "}>{`${l.sign} ${l.text}`}</Text>
          </Text>
        ),
      )}
      {lines.length > limit ? <Text dimColor>{`… ${lines.length - limit} more lines (Ctrl+O: details)`}</Text> : null}
    </Box>
  );
}

function ToolRun({ block, details, stale }: { block: ToolBlock; details: boolean; stale?: boolean }): ReactNode {
  const result = block.result;
  const status = result ? result.status : block.running ? "running" : block.done ? "not run" : "preparing";
  const limit = details ? EXPANDED_LINES : COLLAPSED_LINES;
  // A completed edit's own diff has line numbers and context; until then the call's arguments show the change.
  const numbered = result?.status === "completed" ? resultDiff(result.metadata) : null;
  const diff = numbered ? null : diffOf(block.name, block.args);
  const output = result ? clipLines(result.output, limit) : null;
  const c = useTheme().colors;
  const statusColor = STATUS_COLOR[status] ? c[STATUS_COLOR[status]] : undefined;
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text wrap="truncate-end">
        <Text color={STATUS_COLOR[status] ? statusColor : stale ? c.muted : c.accent}>{"● "}</Text>
        <Text bold>{block.name}</Text>
        <Text dimColor>{` ${argumentSummary(block.name, block.args, block.argsText)}`}</Text>
      </Text>
      {numbered ? <NumberedDiffView lines={numbered} limit={details ? EXPANDED_LINES : 16} /> : null}
      {diff ? <DiffView lines={diff} limit={details ? EXPANDED_LINES : 12} /> : null}
      {output ? (
        <Box flexDirection="column" paddingLeft={2}>
          <Text color={statusColor}>
            {`⎿ ${status}${block.durationMs !== null ? ` in ${formatDuration(block.durationMs)}` : ""}`}
          </Text>
          {((diff || numbered) && result!.status === "completed" && !details ? [] : output.lines).map((l, i) => (
            <Text key={i} dimColor wrap="truncate-end">{`  ${l}`}</Text>
          ))}
          {output.more > 0 && !((diff || numbered) && result!.status === "completed" && !details) ? <Text dimColor>{`  … ${output.more} more lines (Ctrl+O: details)`}</Text> : null}
        </Box>
      ) : (
        <Text dimColor wrap="truncate-end">{`  ⎿ ${status}…${block.running && block.progress ? ` ${block.progress}` : ""}`}</Text>
      )}
    </Box>
  );
}

export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
