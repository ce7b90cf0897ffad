// The `agent connect` picker (gateway.md client rule 4): two tables, Sessions and Projects. Tab switches;
// Up/Down select; Enter attaches to a session (the caller resumes a stopped one) or, in Projects, creates
// a session; `n` jumps to Projects; `r` refreshes; Esc goes back to Sessions or cancels; Ctrl+C cancels.
// The tables follow the FleetStore, which the fleet event stream keeps current, so state changes appear
// without `r`. The selection follows its row by id when rows come and go.
import { Box, Text, useInput } from "ink";
import { useState, useSyncExternalStore, type ReactNode } from "react";
import type { FleetProject, FleetSession } from "../../src/protocol/fleet-event.ts";
import { useTheme } from "../theme/theme.ts";
import { shortPath, type FleetStore } from "./fleet-store.ts";

export type PickerTab = "sessions" | "projects";

export interface PickerStatus {
  kind: "busy" | "error";
  text: string;
}

export interface PickerProps {
  store: FleetStore;
  /** The gateway's display name and address, for the title. */
  title: string;
  /** Work under way ("starting the session…", keys wait) or the last action's failure. */
  status?: PickerStatus | null;
  onAttach(session: FleetSession): void;
  onCreate(project: FleetProject): void;
  onRefresh(): void;
  onCancel(): void;
  /** Rows shown at once; the list scrolls around the selection. */
  rows?: number;
}

export function Picker({ store, title, status, onAttach, onCreate, onRefresh, onCancel, rows = 12 }: PickerProps): ReactNode {
  useSyncExternalStore(store.subscribe, store.getVersion);
  const [tab, setTab] = useState<PickerTab>("sessions");
  const [picked, setPicked] = useState<Record<PickerTab, string | null>>({ sessions: null, projects: null });
  const sessions = store.sessionList();
  const projects = store.projectList();
  const ids = tab === "sessions" ? sessions.map((s) => s.session_id) : projects.map((p) => p.project_id);
  const index = Math.max(0, ids.indexOf(picked[tab] ?? ids[0] ?? ""));
  const busy = status?.kind === "busy";

  useInput((input, key) => {
    if (key.ctrl && input === "c") return onCancel();
    if (busy) return;
    if (key.tab) return setTab((t) => (t === "sessions" ? "projects" : "sessions"));
    if (key.escape) return tab === "projects" ? setTab("sessions") : onCancel();
    if (input === "n") return setTab("projects");
    if (input === "r") return onRefresh();
    if (key.upArrow || key.downArrow) {
      const next = Math.min(Math.max(index + (key.upArrow ? -1 : 1), 0), ids.length - 1);
      if (next >= 0) setPicked((p) => ({ ...p, [tab]: ids[next]! }));
      return;
    }
    if (key.return) {
      if (tab === "sessions" && sessions[index]) onAttach(sessions[index]);
      if (tab === "projects" && projects[index]) onCreate(projects[index]);
    }
  });

  const c = useTheme().colors;
  const countOf = (projectId: string) => sessions.filter((s) => s.project_id === projectId).length;
  return (
    <Box flexDirection="column">
      <Text bold>{title}</Text>
      <Box gap={2} marginTop={1}>
        <TabLabel active={tab === "sessions"} label={`Sessions (${sessions.length})`} />
        <TabLabel active={tab === "projects"} label={`Projects (${projects.length})`} />
      </Box>
      {tab === "sessions" ? (
        <Table
          header={["SESSION", "STATE", "PROJECT", "ACTIVITY", "UPDATED"]}
          rows={sessions.map((s) => [s.session_id, s.state, projectLabel(store, s.project_id), activity(s), shortTime(s.updated_at)])}
          selected={index}
          window={rows}
          empty="No sessions yet. Press n to pick a project and start one."
        />
      ) : (
        <Table
          header={["PROJECT", "CONFIG", "SESSIONS", "ID"]}
          rows={projects.map((p) => [shortPath(p.path), p.config_name, String(countOf(p.project_id)), p.project_id])}
          selected={index}
          window={rows}
          empty="No projects registered on this gateway (agent gateway project register PATH --config-name NAME)."
        />
      )}
      <Box marginTop={1} flexDirection="column">
        {status ? <Text color={status.kind === "error" ? c.error : c.warning}>{status.text}</Text> : null}
        <FeedLine store={store} />
        <Text dimColor>
          {tab === "sessions" ? "Enter attach (resumes a stopped session)" : "Enter start a new session here"}
          {" · Tab switch · ↑↓ select · n new session · r refresh · Esc "}
          {tab === "projects" ? "back" : "cancel"}
          {" · Ctrl+C cancel"}
        </Text>
      </Box>
    </Box>
  );
}

function TabLabel({ active, label }: { active: boolean; label: string }): ReactNode {
  return active ? <Text bold inverse>{` ${label} `}</Text> : <Text dimColor>{` ${label} `}</Text>;
}

function FeedLine({ store }: { store: FleetStore }): ReactNode {
  const c = useTheme().colors;
  if (store.feed === "live") return <Text dimColor>● live</Text>;
  if (store.feed === "loading") return <Text dimColor>loading…</Text>;
  return <Text color={c.warning}>{`○ not live, reconnecting (${store.problem ?? "connection lost"}); the tables may be out of date`}</Text>;
}

function Table({ header, rows, selected, window, empty }: { header: string[]; rows: string[][]; selected: number; window: number; empty: string }): ReactNode {
  const c = useTheme().colors;
  if (rows.length === 0) return <Text dimColor>{`  ${empty}`}</Text>;
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ");
  const start = Math.min(Math.max(0, selected - Math.floor(window / 2)), Math.max(0, rows.length - window));
  const shown = rows.slice(start, start + window);
  return (
    <Box flexDirection="column">
      <Text bold>{`  ${line(header)}`}</Text>
      {shown.map((r, i) =>
        start + i === selected ? (
          <Text key={r[0]} color={c.selection} bold>{`› ${line(r)}`}</Text>
        ) : (
          <Text key={r[0]}>{`  ${line(r)}`}</Text>
        ),
      )}
      {rows.length > window ? <Text dimColor>{`  ${start + 1}-${start + shown.length} of ${rows.length}`}</Text> : null}
    </Box>
  );
}

function projectLabel(store: FleetStore, projectId: string): string {
  const p = store.projects.get(projectId);
  return p ? shortPath(p.path) : projectId;
}

/** What a running session is doing, from its last observed summary. */
function activity(s: FleetSession): string {
  if (s.state !== "running") return "-";
  if (!s.summary) return "…";
  const what = s.summary.attention ? "needs you" : s.summary.busy ? "working" : "idle";
  return s.stale ? `${what}?` : what;
}

/** `2025-01-31T14:05:09.123Z` -> `2025-01-31 14:05` (UTC, like the gateway's other listings). */
function shortTime(iso: string): string {
  return iso.slice(0, 16).replace("T", " ");
}
