// `agent continue` with no SESSION on a terminal, when the project has more than one session: a list of
// them, newest activity first (title, age, state), before the conversation view opens. Up/Down select,
// Enter picks, Esc or Ctrl+C cancels. Its own short Ink render, like the trust dialog.
import { Box, Text, render, useInput, useWindowSize } from "ink";
import { useState, type ReactNode } from "react";
import { terminalTheme } from "./theme/resolve.ts";
import { ThemeProvider, useTheme } from "./theme/theme.ts";
import { rawBeforeFirstFrame } from "./raw-before-first-frame.ts";

export interface PickableSession {
  id: string;
  title: string | null;
  /** Last activity, ms since the epoch. */
  updatedAt: number;
  /** What `agent sessions list` shows: running, exited (its daemon died), stopped. */
  state: string;
}

/** `just now`, `5 min ago`, `3 h ago`, `2 d ago`. */
export function age(then: number, now: number): string {
  const s = Math.max(0, Math.round((now - then) / 1000));
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

export interface SessionPickerProps {
  sessions: PickableSession[];
  project: string;
  now: number;
  onPick(id: string | null): void;
}

export function SessionPicker({ sessions, project, now, onPick }: SessionPickerProps): ReactNode {
  const c = useTheme().colors;
  const [selected, setSelected] = useState(0);
  const [picked, setPicked] = useState<string | null | undefined>(undefined);
  const { rows, columns } = useWindowSize();
  const pick = (id: string | null) => {
    setPicked(id);
    onPick(id);
  };
  useInput(
    (input, key) => {
      if ((key.ctrl && input === "c") || key.escape) pick(null);
      else if (key.upArrow) setSelected((i) => Math.max(0, i - 1));
      else if (key.downArrow || key.tab) setSelected((i) => Math.min(sessions.length - 1, i + 1));
      else if (key.return) pick(sessions[selected]!.id);
    },
    { isActive: picked === undefined },
  );
  if (picked !== undefined) return <Text dimColor>{picked ? `continuing ${picked}` : "Cancelled: no session was opened."}</Text>;
  const window = Math.max(3, rows - 6);
  const start = Math.min(Math.max(0, selected - Math.floor(window / 2)), Math.max(0, sessions.length - window));
  const shown = sessions.slice(start, start + window);
  const ages = shown.map((s) => age(s.updatedAt, now));
  const ageWidth = Math.max(...ages.map((a) => a.length));
  const stateWidth = Math.max(...shown.map((s) => s.state.length));
  const titleWidth = Math.max(10, columns - 4 - ageWidth - stateWidth - 4);
  return (
    <Box flexDirection="column">
      <Text bold>{`Sessions of ${project} (${sessions.length}):`}</Text>
      {shown.map((s, i) => {
        const title = s.title || `(untitled) ${s.id}`;
        const cut = title.length > titleWidth ? `${title.slice(0, titleWidth - 1)}…` : title.padEnd(titleWidth);
        const line = `${cut}  ${ages[i]!.padEnd(ageWidth)}  ${s.state}`;
        return start + i === selected ? (
          <Text key={s.id} color={c.selection} bold wrap="truncate-end">{`❯ ${line}`}</Text>
        ) : (
          <Text key={s.id} wrap="truncate-end">{`  ${line}`}</Text>
        );
      })}
      {sessions.length > window ? <Text dimColor>{`  ${start + 1}-${start + shown.length} of ${sessions.length}`}</Text> : null}
      <Text dimColor>↑↓ select · Enter continue the session · Esc cancel</Text>
    </Box>
  );
}

/** Shows the picker and resolves with the chosen session id, or null when cancelled. */
export async function pickSession(sessions: PickableSession[], project: string): Promise<string | null> {
  const { theme } = await terminalTheme({ stdin: process.stdin, stdout: process.stdout });
  const answer = Promise.withResolvers<string | null>();
  const cooked = rawBeforeFirstFrame(process.stdin);
  const app = render(
    <ThemeProvider value={theme}>
      <SessionPicker sessions={sessions} project={project} now={Date.now()} onPick={answer.resolve} />
    </ThemeProvider>,
    { exitOnCtrlC: false },
  );
  const id = await answer.promise;
  // The answer's line is drawn before Ink lets go of the terminal.
  await Bun.sleep(20);
  app.unmount();
  await app.waitUntilExit();
  cooked();
  return id;
}
