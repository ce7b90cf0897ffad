// `/rewind` with no arguments: pick one of your prompts, then what goes back to before it (files and
// conversation, the conversation only, or the files only). A file someone changed since the agent did
// is never overwritten silently: the daemon refuses naming it, and the picker asks whether to keep it
// (restore the rest) or overwrite it too. Arrows or digits pick, Enter confirms, Esc goes back.
import { Box, Text, useInput } from "ink";
import { useEffect, useState, type ReactNode } from "react";
import { DaemonRequestError } from "../../src/client/daemon-client.ts";
import { useTheme } from "../theme/theme.ts";

export interface RewindPrompt {
  n: number;
  id: string;
  text: string;
  files: number;
}

/** What the picker needs of the session: the session command route. */
export interface RewindActions {
  sessionCommand(name: string, args: string[]): Promise<{ message: string; data?: Record<string, unknown> }>;
}

export interface RewindOutcome {
  /** The command line that ran (for the transcript), null when cancelled before running. */
  command: string | null;
  message: string;
  failed: boolean;
  /** The prompt rewound to, to put back into the editor (conversation rewinds). */
  promptText?: string;
}

const MODES = [
  { mode: "both", label: "Files and conversation" },
  { mode: "conversation", label: "Conversation only (files stay as they are)" },
  { mode: "code", label: "Files only (the conversation stays)" },
] as const;

const CONFLICT = [
  { option: "--keep", label: "Keep the changed files as they are, restore the rest" },
  { option: "--force", label: "Overwrite them too" },
  { option: null, label: "Cancel" },
] as const;

type Step = { kind: "loading" } | { kind: "prompts"; prompts: RewindPrompt[] } | { kind: "mode"; prompt: RewindPrompt } | { kind: "conflict"; prompt: RewindPrompt; mode: string; message: string } | { kind: "running" };

export function RewindPicker({ actions, onDone, active }: { actions: RewindActions; onDone(outcome: RewindOutcome): void; active: boolean }): ReactNode {
  const [step, setStep] = useState<Step>({ kind: "loading" });
  const [index, setIndex] = useState(0);
  const [listed, setListed] = useState<RewindPrompt[]>([]);
  const c = useTheme().colors;
  useEffect(() => {
    actions.sessionCommand("rewind", []).then(
      (r) => {
        const prompts = ((r.data?.prompts ?? []) as RewindPrompt[]).slice();
        if (prompts.length === 0) return onDone({ command: null, message: "no prompts to rewind to yet", failed: false });
        setIndex(prompts.length - 1);
        setListed(prompts);
        setStep({ kind: "prompts", prompts });
      },
      (e: unknown) => onDone({ command: "/rewind", message: describe(e), failed: true }),
    );
  }, []);

  function run(prompt: RewindPrompt, mode: string, option: string | null) {
    const args = [String(prompt.n), mode, ...(option ? [option] : [])];
    const command = `/rewind ${args.join(" ")}`;
    setStep({ kind: "running" });
    actions.sessionCommand("rewind", args).then(
      (r) => onDone({ command, message: r.message, failed: false, ...(mode !== "code" ? { promptText: String(r.data?.prompt_text ?? prompt.text) } : {}) }),
      (e: unknown) => {
        if (e instanceof DaemonRequestError && e.code === "checkpoint_conflict" && !option) {
          setIndex(0);
          return setStep({ kind: "conflict", prompt, mode, message: e.message });
        }
        onDone({ command, message: describe(e), failed: true });
      },
    );
  }

  const count = step.kind === "prompts" ? step.prompts.length : step.kind === "mode" ? MODES.length : step.kind === "conflict" ? CONFLICT.length : 0;
  useInput(
    (input, key) => {
      if (count === 0) return;
      if (key.upArrow) return setIndex((i) => (i - 1 + count) % count);
      if (key.downArrow || key.tab) return setIndex((i) => (i + 1) % count);
      const digit = /^[1-9]$/.test(input) ? Number(input) - 1 : -1;
      const pick = digit >= 0 && digit < count ? digit : key.return ? index : -1;
      if (key.escape) {
        if (step.kind === "mode") {
          setIndex(Math.max(0, listed.indexOf(step.prompt)));
          return setStep({ kind: "prompts", prompts: listed });
        }
        return onDone({ command: null, message: "rewind cancelled: nothing was changed", failed: false });
      }
      if (pick < 0) return;
      if (step.kind === "prompts") {
        setIndex(0);
        return setStep({ kind: "mode", prompt: step.prompts[pick]! });
      }
      if (step.kind === "mode") return run(step.prompt, MODES[pick]!.mode, null);
      if (step.kind === "conflict") {
        const option = CONFLICT[pick]!.option;
        if (!option) return onDone({ command: null, message: "rewind cancelled: nothing was changed", failed: false });
        return run(step.prompt, step.mode, option);
      }
    },
    { isActive: active },
  );

  const row = (i: number, label: string) => (
    <Text key={i} inverse={i === index} wrap="truncate-end">{` ${i + 1}. ${label} `}</Text>
  );
  return (
    <Box borderStyle="round" borderColor={c.accent} paddingX={1} flexDirection="column">
      {step.kind === "loading" || step.kind === "running" ? <Text dimColor>{step.kind === "loading" ? "reading the prompts…" : "rewinding…"}</Text> : null}
      {step.kind === "prompts" ? (
        <>
          <Text bold>Rewind to before which prompt?</Text>
          {step.prompts.map((p, i) => row(i, `${p.text.split("\n")[0]}${p.files ? `  (${p.files} file${p.files === 1 ? "" : "s"} changed)` : ""}`))}
          <Text dimColor>Enter picks · Esc cancels</Text>
        </>
      ) : null}
      {step.kind === "mode" ? (
        <>
          <Text bold wrap="truncate-end">{`Before "${step.prompt.text.split("\n")[0]}": what goes back?`}</Text>
          {MODES.map((m, i) => row(i, m.label))}
          <Text dimColor>Enter rewinds · Esc goes back</Text>
        </>
      ) : null}
      {step.kind === "conflict" ? (
        <>
          <Text color={c.error}>{step.message}</Text>
          {CONFLICT.map((o, i) => row(i, o.label))}
        </>
      ) : null}
    </Box>
  );
}

function describe(e: unknown): string {
  if (e instanceof DaemonRequestError) return `${e.code}: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}
