// The inline dialog for an open question. A permission ask offers allow once, allow always (this
// session or this project) and deny with an optional message for the model; a goal approval offers
// approve and reject (with a message). Arrows or the digit keys pick, Enter confirms.
import { Box, Text, useInput } from "ink";
import { useRef, useState, type ReactNode } from "react";
import type { Interrogative, InterrogativeAnswer } from "../../src/agent/events.ts";
import { useTheme, type Palette } from "../theme/theme.ts";
import { argumentSummary } from "./tool-view.tsx";

interface Choice {
  label: string;
  answer: InterrogativeAnswer;
  /** Asks for a message before answering. */
  withMessage?: boolean;
}

export function choicesFor(q: Interrogative): Choice[] {
  if (q.kind === "permission") {
    return [
      { label: "Allow once", answer: { decision: "allow_once" } },
      // The rule "allow always" writes is shown with it (the project one goes into .agent/permissions.yaml).
      { label: `Allow always in this session${q.suggested_rule ? `: ${q.suggested_rule}` : ""}`, answer: { decision: "allow_always", scope: "session" } },
      { label: `Allow always in this project${q.suggested_rule ? ` (adds ${q.suggested_rule} to .agent/permissions.yaml)` : ""}`, answer: { decision: "allow_always", scope: "project" } },
      { label: "Deny (tell the model why)", answer: { decision: "deny" }, withMessage: true },
    ];
  }
  return [
    { label: "Approve", answer: { decision: "approve" } },
    { label: "Reject (tell the model why)", answer: { decision: "reject" }, withMessage: true },
  ];
}

export interface QuestionDialogProps {
  question: Interrogative;
  /** How many more questions wait behind this one. */
  more: number;
  onAnswer(answer: InterrogativeAnswer): void;
  /** Esc while choosing (not while typing a message): interrupts the turn, which withdraws the question. */
  onEscape?: () => void;
  active: boolean;
  /** An error from the last attempt to answer. */
  error: string | null;
}

/**
 * Dialog state a key handler reads and writes at once: several keys can arrive in one read, before React
 * renders again, so the handler must see what the previous key did (a ref), and a render follows.
 */
function useLiveState<T extends object>(initial: T): [{ current: T }, (change: Partial<T>) => void] {
  const ref = useRef(initial);
  const [, redraw] = useState(0);
  return [ref, (change) => ((ref.current = { ...ref.current, ...change }), redraw((n) => n + 1))];
}

export function QuestionDialog({ question, more, onAnswer, onEscape, active, error }: QuestionDialogProps): ReactNode {
  const choices = choicesFor(question);
  const [state, set] = useLiveState<{ selected: number; message: string | null }>({ selected: 0, message: null });
  useInput(
    (input, key) => {
      const { selected, message } = state.current;
      if (message !== null) {
        if (key.return) {
          const base = choices[selected]!.answer;
          set({ message: null });
          onAnswer(message.trim() ? ({ ...base, message: message.trim() } as InterrogativeAnswer) : base);
        } else if (key.escape) set({ message: null });
        else if (key.backspace || key.delete) set({ message: message.slice(0, -1) });
        else if (input && !key.ctrl && !key.meta) set({ message: message + input });
        return;
      }
      if (key.escape) onEscape?.();
      else if (key.upArrow) set({ selected: (selected + choices.length - 1) % choices.length });
      else if (key.downArrow || key.tab) set({ selected: (selected + 1) % choices.length });
      else if (/^[1-9]$/.test(input) && Number(input) <= choices.length) pick(Number(input) - 1);
      else if (key.return) pick(selected);
    },
    { isActive: active },
  );
  function pick(i: number) {
    const choice = choices[i]!;
    set({ selected: i, message: choice.withMessage ? "" : null });
    if (!choice.withMessage) onAnswer(choice.answer);
  }
  const c = useTheme().colors;
  const { selected, message } = state.current;
  const { title, details } = describe(question, c);
  return (
    <Box borderStyle="round" borderColor={c.warning} paddingX={1} flexDirection="column">
      {title}
      {details.map((d, i) => (
        <Text key={i} dimColor>{d}</Text>
      ))}
      {choices.map((choice, i) => (
        <Text key={choice.label} color={i === selected ? c.selection : undefined}>{`${i === selected ? "❯" : " "} ${i + 1}. ${choice.label}`}</Text>
      ))}
      {message !== null ? (
        <Text>
          <Text color={c.selection}>{"message: "}</Text>
          {message}
          <Text inverse> </Text>
          <Text dimColor>{"  (Enter sends, Esc goes back)"}</Text>
        </Text>
      ) : null}
      {onEscape && message === null ? <Text dimColor>{"Esc stops the turn (nothing is run)"}</Text> : null}
      {more > 0 ? <Text dimColor>{`${more} more question${more === 1 ? "" : "s"} waiting`}</Text> : null}
      {error ? <Text color={c.error}>{error}</Text> : null}
    </Box>
  );
}

/** The question's headline and the lines that explain it; any kind but `permission` is an approval. */
function describe(q: Interrogative, c: Palette): { title: ReactNode; details: string[] } {
  if (q.kind === "permission") {
    return {
      title: (
        <Text>
          <Text bold color={c.warning}>Allow </Text>
          <Text bold>{q.tool}</Text>
          <Text>{` ${argumentSummary(q.tool, q.arguments, "")}`}</Text>
          <Text bold color={c.warning}>?</Text>
        </Text>
      ),
      details: q.reason ? [q.reason] : [],
    };
  }
  if (q.kind === "goal_approval") {
    return {
      title: (
        <Text>
          <Text bold color={c.warning}>Approve this goal? </Text>
          <Text>{q.goal}</Text>
        </Text>
      ),
      details: [],
    };
  }
  if (q.kind === "extension_approval") {
    return {
      title: (
        <Text>
          <Text bold color={c.warning}>Approve the extension </Text>
          <Text bold>{`${q.name} ${q.version}`}</Text>
          <Text>{` (${q.origin}: ${q.path})`}</Text>
          <Text bold color={c.warning}>?</Text>
        </Text>
      ),
      details: [q.description, q.capabilities.length ? `capabilities: ${q.capabilities.join(", ")}` : "", q.reason].filter(Boolean),
    };
  }
  const other = q as { kind: string };
  return { title: <Text bold color={c.warning}>{`Approve (${other.kind})?`}</Text>, details: [] };
}

export function ConfirmDialog({ text, onResult, active }: { text: string; onResult(ok: boolean): void; active: boolean }): ReactNode {
  // Cancel is the default: a stray Enter must never stop a session.
  const [state, set] = useLiveState({ yes: false });
  useInput(
    (input, key) => {
      if (key.leftArrow || key.rightArrow || key.tab) set({ yes: !state.current.yes });
      else if (input === "y") onResult(true);
      else if (input === "n" || key.escape) onResult(false);
      else if (key.return) onResult(state.current.yes);
    },
    { isActive: active },
  );
  const c = useTheme().colors;
  const { yes } = state.current;
  return (
    <Box borderStyle="round" borderColor={c.error} paddingX={1} flexDirection="column">
      <Text bold>{text}</Text>
      <Text>
        <Text inverse={!yes}>{" Cancel "}</Text>
        {"  "}
        <Text inverse={yes} color={c.error}>{" Stop the session "}</Text>
      </Text>
    </Box>
  );
}
