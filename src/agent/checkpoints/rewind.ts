// What /undo and /rewind do: pick the turns to take back, plan the file restore, refuse on a conflict
// unless told what to do, restore, and record `rewound` (whose fold also cuts the conversation).
import { relative } from "node:path";
import type { UserMessage } from "../conversation.ts";
import type { AgentSession } from "../session.ts";
import { SessionCommandError, type SessionCommandResult } from "../commands/types.ts";
import type { Checkpoints, TurnCheckpoint } from "./recorder.ts";
import { applyRestore, planRestore } from "./restore.ts";

export type RewindMode = "code" | "conversation" | "both";
export type ConflictChoice = "force" | "keep" | null;

/** The user's prompts still in the conversation, oldest first: what /rewind offers. */
export function promptList(session: AgentSession, checkpoints: Checkpoints): { n: number; id: string; text: string; files: number }[] {
  const live = checkpoints.liveTurns();
  const prompts = session.conversation.entries.filter((e): e is UserMessage => e.role === "user" && e.origin === "prompt");
  return prompts.map((p, i) => ({
    n: i + 1,
    id: p.id,
    text: promptText(p),
    files: new Set(live.filter((t) => t.promptId === p.id).flatMap((t) => [...t.before.keys()])).size,
  }));
}

function promptText(p: UserMessage): string {
  const text = p.content.map((c) => (c.type === "text" ? c.text : "[image]")).join(" ");
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

export function undo(session: AgentSession, checkpoints: Checkpoints, choice: ConflictChoice): SessionCommandResult {
  const turn = checkpoints.liveTurns().at(-1);
  if (!turn) throw new SessionCommandError("command_unavailable", "no turn has file changes left to undo");
  const prompt = session.conversation.entries.find((e) => e.id === turn.promptId);
  const about = prompt?.role === "user" ? ` (the turn of "${short(promptText(prompt))}")` : "";
  const done = restore(session, checkpoints, [turn], "undo", turn.promptId, "code", choice);
  return { message: `Undid the last turn's file changes${about}: ${done.summary}`, data: done.data };
}

export function rewind(session: AgentSession, checkpoints: Checkpoints, target: string, mode: RewindMode, choice: ConflictChoice): SessionCommandResult {
  const prompts = promptList(session, checkpoints);
  const chosen = /^\d+$/.test(target) ? prompts[Number(target) - 1] : prompts.find((p) => p.id === target);
  if (!chosen) {
    const range = prompts.length ? `a prompt number from 1 to ${prompts.length} or its id (see /rewind)` : "nothing: the conversation has no prompts yet";
    throw new SessionCommandError("invalid_command", `no prompt '${target}' in this conversation; allowed: ${range}`);
  }
  const entries = session.conversation.entries;
  const after = new Set(entries.slice(entries.findIndex((e) => e.id === chosen.id)).map((e) => e.id));
  const live = checkpoints.liveTurns();
  const first = live.findIndex((t) => after.has(t.promptId));
  const turns = mode === "conversation" || first < 0 ? [] : live.slice(first);
  const done = restore(session, checkpoints, turns, "rewind", chosen.id, mode, choice);
  const convo = mode === "code" ? "" : " The conversation is back to before that prompt.";
  return { message: `Rewound to before prompt ${chosen.n} ("${short(chosen.text)}"): ${mode === "conversation" ? "files left as they are." : done.summary}${convo}`, data: { ...done.data, prompt_text: chosen.text } };
}

function restore(session: AgentSession, checkpoints: Checkpoints, turns: TurnCheckpoint[], action: "undo" | "rewind", promptId: string, mode: RewindMode, choice: ConflictChoice) {
  const shown = (p: string) => relative(checkpoints.projectRoot, p) || p;
  const plans = planRestore(turns);
  const conflicts = plans.filter((p) => p.conflict);
  if (conflicts.length > 0 && !choice) {
    const list = conflicts.map((c) => `${shown(c.path)} (${c.conflict})`).join("; ");
    throw new SessionCommandError(
      "checkpoint_conflict",
      `not restored: ${conflicts.length === 1 ? "a file was" : `${conflicts.length} files were`} changed by someone else since the agent changed ${conflicts.length === 1 ? "it" : "them"}: ${list}. Nothing was changed. Run /${action === "undo" ? "undo" : "rewind ..."} again with --keep to leave ${conflicts.length === 1 ? "it" : "them"} as ${conflicts.length === 1 ? "it is" : "they are"} and restore the rest, or --force to overwrite ${conflicts.length === 1 ? "it" : "them"} too.`,
    );
  }
  let result: { restored: string[]; kept: string[] };
  try {
    result = applyRestore(plans, checkpoints.blobs, choice ?? "keep");
  } catch (error) {
    throw new SessionCommandError("command_failed", `the restore failed: ${(error as Error).message}`);
  }
  session.record({ type: "rewound", action, prompt_id: promptId, mode, turn_ids: turns.map((t) => t.turnId), restored: result.restored, kept: result.kept });
  const restored = result.restored.map(shown);
  const kept = result.kept.map(shown);
  const summary = restored.length ? `restored ${restored.join(", ")}.` : "no files to restore.";
  return {
    summary: kept.length ? `${summary} Kept as changed since: ${kept.join(", ")}.` : summary,
    data: { prompt_id: promptId, mode, restored, kept },
  };
}

function short(text: string): string {
  const line = text.split("\n")[0]!;
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
