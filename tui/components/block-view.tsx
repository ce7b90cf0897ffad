// One block of the conversation: a user prompt, assistant text (markdown), reasoning (one collapsed line
// unless details are on), a tool call, a retry, a notice, the model's plan, the abnormal end of a turn,
// or command output.
import { Box, Text } from "ink";
import { memo, type ReactNode } from "react";
import { Markdown, PrintedMarkdown } from "../markdown.tsx";
import { retryText } from "../../src/util/retry-text.ts";
import { tailLines } from "../tail-lines.ts";
import { useTheme } from "../theme/theme.ts";
import type { Block } from "../view-state.ts";
import { planProgress, type PlanItem } from "../../src/protocol/plan.ts";
import type { HelpTable } from "../slash.ts";
import { clipLines, ToolView } from "./tool-view.tsx";
import { WrappedLines } from "./wrapped.tsx";

/** A mark, then text that wraps under itself (not under the mark). */
function Marked({ mark, color, text }: { mark: string; color: string | undefined; text: string }): ReactNode {
  return (
    <Box>
      <Text color={color}>{mark}</Text>
      <Box flexDirection="column" flexGrow={1} flexBasis={0}>
        <WrappedLines text={text} color={color} />
      </Box>
    </Box>
  );
}

/** /help: usages in one column and their summaries in the next, wrapped inside it at any width. */
function HelpView({ help }: { help: HelpTable }): ReactNode {
  const column = help.width + 4;
  return (
    <Box flexDirection="column">
      <Text>Commands:</Text>
      {help.rows.map((r) =>
        r.usage.length <= help.width ? (
          <Box key={r.usage}>
            <Box width={column} flexShrink={0}>
              <Text>{`  ${r.usage}`}</Text>
            </Box>
            <Box flexDirection="column" flexGrow={1} flexBasis={0}>
              <WrappedLines text={r.summary} />
            </Box>
          </Box>
        ) : (
          <Box key={r.usage} flexDirection="column">
            <Box paddingLeft={2}>
              <WrappedLines text={r.usage} />
            </Box>
            <Box paddingLeft={column} flexDirection="column">
              <WrappedLines text={r.summary} />
            </Box>
          </Box>
        ),
      )}
      {help.notes.map((n, i) => (
        <Text key={i}>{n.startsWith("(") ? `  ${n}` : n || " "}</Text>
      ))}
    </Box>
  );
}

const PLAN_MARKS: Record<PlanItem["status"], string> = { done: "✓", in_progress: "▸", pending: "○" };

/** The model's checklist: done items dimmed, the one in progress highlighted. */
function PlanView({ items }: { items: PlanItem[] }): ReactNode {
  const c = useTheme().colors;
  const progress = planProgress(items);
  return (
    <Box marginTop={1} flexDirection="column">
      <Text>
        <Text color={c.accent}>{"☰ "}</Text>
        <Text bold>Plan</Text>
        <Text dimColor>{progress ? ` ${progress.done}/${progress.total} done` : " cleared"}</Text>
      </Text>
      {items.map((item, i) => (
        <Box key={i}>
          <Text color={item.status === "done" ? c.success : item.status === "in_progress" ? c.accent : c.muted}>{`  ${PLAN_MARKS[item.status]} `}</Text>
          <Box flexGrow={1} flexBasis={0}>
            <Text bold={item.status === "in_progress"} dimColor={item.status === "done"} strikethrough={item.status === "done"}>
              {item.text}
            </Text>
          </Box>
        </Box>
      ))}
    </Box>
  );
}

const STOP_TEXT: Record<string, string> = {
  interrupted: "interrupted",
  error: "failed",
  max_tool_turns: "stopped: the tool round-trip budget ran out",
  refusal: "the model refused",
  max_tokens: "stopped: the answer hit the output token limit",
};

export interface BlockViewProps {
  block: Block;
  details: boolean;
  stale?: boolean;
  /** For a block still streaming: draw only its last screen rows (the whole prints once it is complete). */
  maxLines?: number;
  /** The terminal's width: a finished answer is drawn pre-wrapped to it (few layout nodes; see markdown-print.ts). */
  columns?: number;
}

export const BlockView = memo(function BlockView({ block, details, stale, maxLines, columns }: BlockViewProps): ReactNode {
  const c = useTheme().colors;
  switch (block.kind) {
    case "user":
      return (
        <Box marginTop={1}>
          <Text color={c.prompt} bold>{"› "}</Text>
          <Box flexDirection="column" flexGrow={1} flexBasis={0}>
            <WrappedLines text={block.text} />
          </Box>
        </Box>
      );
    case "text": {
      const cut = !block.done && maxLines ? tailLines(block.text, maxLines, columns) : { text: block.text, hidden: 0 };
      return (
        <Box marginTop={1} flexDirection="column">
          {cut.text !== block.text ? <Text dimColor>{`… ${cut.hidden ? `${cut.hidden} lines` : "more"} above (printed in full when the answer completes)`}</Text> : null}
          {block.done && columns ? <PrintedMarkdown text={block.text} width={columns} /> : <Markdown text={cut.text} />}
        </Box>
      );
    }
    case "reasoning": {
      if (!details) {
        const lines = block.text.trim() ? block.text.trim().split("\n").length : 0;
        return (
          <Box marginTop={1}>
            <Text dimColor italic>{`✻ ${block.done ? "Thought" : "Thinking"}${lines ? ` (${lines} line${lines === 1 ? "" : "s"}; Ctrl+O: details)` : ""}`}</Text>
          </Box>
        );
      }
      const { lines, more } = clipLines(block.text, 200);
      return (
        <Box marginTop={1} flexDirection="column">
          <Text dimColor italic>✻ Reasoning</Text>
          {lines.map((l, i) => (
            <Text key={i} dimColor italic>{`  ${l}`}</Text>
          ))}
          {more ? <Text dimColor>{`  … ${more} more lines`}</Text> : null}
        </Box>
      );
    }
    case "tool":
      return <ToolView block={block} details={details} stale={stale} />;
    case "retry":
      return <Marked mark="↻ " color={c.warning} text={`${retryText(block.attempt, block.max, block.delayMs)}: ${block.reason}`} />;
    case "notice":
      return <Marked mark={block.level === "info" ? "ℹ " : "⚠ "} color={block.level === "info" ? c.muted : block.level === "warning" ? c.warning : c.error} text={block.message} />;
    case "turn_end":
      return (
        <Box marginTop={1}>
          <Marked mark="■ " color={block.stopReason === "error" ? c.error : c.warning} text={`${STOP_TEXT[block.stopReason] ?? block.stopReason}${block.error ? ` — ${block.error}` : ""}`} />
        </Box>
      );
    case "subagent": {
      const report = block.report ? clipLines(block.report, details ? 200 : 3) : null;
      return (
        <Box marginTop={1} flexDirection="column">
          <Text wrap="truncate-end">
            <Text color={block.done ? (block.status === "completed" ? c.success : c.warning) : c.accent}>{"⧉ "}</Text>
            <Text bold>{block.name}</Text>
            <Text dimColor>{` ${block.description}`}</Text>
          </Text>
          {block.done ? <Text dimColor>{`  ⎿ ${block.status}`}</Text> : <Text dimColor wrap="truncate-end">{`  ⎿ ${block.activity ?? "working…"}`}</Text>}
          {report?.lines.map((l, i) => (
            <Text key={i} dimColor wrap="truncate-end">{`    ${l}`}</Text>
          ))}
          {report?.more ? <Text dimColor>{`    … ${report.more} more lines (Ctrl+O: details)`}</Text> : null}
        </Box>
      );
    }
    case "plan":
      return <PlanView items={block.items} />;
    case "command":
      return (
        <Box marginTop={1} flexDirection="column">
          <Text dimColor>{`› ${block.input}`}</Text>
          {block.help ? <HelpView help={block.help} /> : <WrappedLines text={block.message} color={block.failed ? c.error : undefined} />}
        </Box>
      );
  }
});
