// The `agent connect` picker (gateway.md client rule 4): two tables, Sessions and Projects. Tab switches;
// Up/Down select; Enter attaches to a session (the caller resumes a stopped one) or, in Projects, creates
// a session; `n` jumps to Projects; `r` refreshes; Esc goes back to Sessions or cancels; Ctrl+C cancels.
// The tables follow the FleetStore, which the fleet event stream keeps current, so state changes appear
// without `r`. The selection follows its row by id when rows come and go. With sessions on more than one
// host the Sessions table has a HOST column; a session whose host is offline is drawn faint with `offline`
// as its state, and Enter on it says why it cannot be attached instead of trying.
import { Box, Text, useInput } from "ink";
import { useState, useSyncExternalStore, type ReactNode } from "react";
import type { FleetProject, FleetSession } from "../../src/protocol/fleet-event.ts";
import { useTheme } from "../theme/theme.ts";
import { shortPath, type FleetStore } from "./fleet-store.ts";
import { Table, type Column } from "./picker-table.tsx";

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
  // Why the last Enter did nothing (an offline host's session); the next key clears it.
  const [refusal, setRefusal] = useState<string | null>(null);

  useInput((input, key) => {
    if (key.ctrl && input === "c") return onCancel();
    if (busy) return;
    setRefusal(null);
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
      const session = tab === "sessions" ? sessions[index] : undefined;
      if (session && !session.host_online) return setRefusal(offlineRefusal(session));
      if (session) onAttach(session);
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
        <SessionTable store={store} sessions={sessions} selected={index} window={rows} />
      ) : (
        <Table
          columns={[{ title: "PROJECT", min: 12 }, { title: "CONFIG", min: 8 }, { title: "SESSIONS" }, { title: "ID" }]}
          rows={projects.map((p) => ({ id: p.project_id, cells: [shortPath(p.path), p.config_name, String(countOf(p.project_id)), p.project_id] }))}
          selected={index}
          window={rows}
          empty="No projects registered on this gateway (agent gateway project register PATH --config-name NAME)."
        />
      )}
      <Box marginTop={1} flexDirection="column">
        {refusal ? <Text color={c.warning}>{refusal}</Text> : status ? <Text color={status.kind === "error" ? c.error : c.warning}>{status.text}</Text> : null}
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

/**
 * The Sessions table. HOST (the owner host) shows only when the sessions are on more than one host: a
 * single-host gateway's table stays as it was. SESSION, HOST and PROJECT give up width first in a narrow
 * terminal (a session id keeps its prefix and creation time).
 */
function SessionTable({ store, sessions, selected, window }: { store: FleetStore; sessions: FleetSession[]; selected: number; window: number }): ReactNode {
  const hosts = new Set(sessions.flatMap((s) => (s.owner_host === null ? [] : [s.owner_host])));
  const withHost = hosts.size > 1;
  const columns: Column[] = [{ title: "SESSION", min: 15 }, { title: "STATE" }, ...(withHost ? [{ title: "HOST", min: 8 }] : []), { title: "PROJECT", min: 8 }, { title: "ACTIVITY" }, { title: "UPDATED" }];
  const rows = sessions.map((s) => ({
    id: s.session_id,
    cells: [s.session_id, s.host_online ? s.state : "offline", ...(withHost ? [s.owner_host ?? ""] : []), projectLabel(store, s.project_id), activity(s), shortTime(s.updated_at)],
    dim: !s.host_online,
  }));
  return <Table columns={columns} rows={rows} selected={selected} window={window} empty="No sessions yet. Press n to pick a project and start one." />;
}

/** What Enter on a session of an offline host says: attaching goes through its host, which no front reaches now. */
function offlineRefusal(s: FleetSession): string {
  const host = s.owner_host ? `its host ${s.owner_host}` : "its host";
  return `${s.session_id} cannot be attached while ${host} is offline (its daemon may still run); it can be once the host reconnects to the gateway.`;
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
