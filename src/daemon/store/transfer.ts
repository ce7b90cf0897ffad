// Fork, export and import of a stored session. Each works on the journal's engine events, the one record
// of a conversation: a fork is a prefix of them in a new session (cut before the prompt after the chosen
// one), an export is them in a versioned JSON document (or a Markdown transcript for people), an import
// checks every event against its record schema before anything is written. The CLI calls these on the
// store directly; a session's daemon offers fork and export as routes (daemon-transfer-routes.ts).
import { cpSync, existsSync } from "node:fs";
import { join } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { foldEvents, type EngineEvent } from "../../agent/events.ts";
import type { ConversationEntry, UserMessage } from "../../agent/conversation.ts";
import { EngineEventVariants } from "../../protocol/sync-record.ts";
import { closingRecords } from "../recovery.ts";
import { newId } from "../../util/ids.ts";
import { initSessionDir, type SessionStore } from "./index.ts";

export const EXPORT_FORMAT = "agent-session";
export const EXPORT_VERSION = 1;

/** Restore points refer to file copies under the session dir, which an export does not carry. */
const LOCAL_ONLY = new Set(["checkpoint_saved", "checkpoint_settled"]);

export interface SessionExport {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  session: { id: string; project: string; title: string | null; created_at: string };
  events: EngineEvent[];
}

export class TransferError extends Error {
  constructor(
    readonly code: "invalid_argument" | "invalid_import",
    message: string,
  ) {
    super(message);
    this.name = "TransferError";
  }
}

const prompts = (events: readonly EngineEvent[]): UserMessage[] =>
  foldEvents([...events]).entries.filter((e): e is UserMessage => e.role === "user" && e.origin === "prompt");

/**
 * The events up to and including the turns of prompt `at` (its number, 1 = the first prompt of the
 * conversation as /rewind counts them, or its message id); everything from the next prompt on is left
 * out. Without `at`: all of them. What the prefix leaves open (a turn running now) is closed as a
 * restarted daemon closes it.
 */
export function eventsUpTo(events: readonly EngineEvent[], at?: string): EngineEvent[] {
  let prefix = [...events];
  if (at !== undefined) {
    const list = prompts(events);
    const index = /^[0-9]+$/.test(at) ? Number(at) - 1 : list.findIndex((p) => p.id === at);
    if (index < 0 || index >= list.length) {
      const allowed = list.length > 0 ? `a prompt number from 1 to ${list.length} or a prompt's message id` : "nothing: the session has no prompts yet";
      throw new TransferError("invalid_argument", `no prompt '${at}' in this session; allowed: ${allowed}`);
    }
    const next = list[index + 1];
    if (next) {
      const message = events.findIndex((e) => e.type === "user_message" && e.message.id === next.id);
      const turn = (events[message] as Extract<EngineEvent, { type: "user_message" }>).turn_id;
      const start = events.findIndex((e) => "turn_id" in e && e.turn_id === turn);
      prefix = events.slice(0, Math.min(start, message));
    }
  }
  return [...prefix, ...(closingRecords(prefix, Date.now()) as unknown as EngineEvent[])];
}

/** A new session in `sessionsDir` (same project) holding the source's history up to `at`; stopped, ready to continue. */
export function forkSession(source: SessionStore, sessionsDir: string, at?: string): SessionStore {
  const events = eventsUpTo(source.events(), at);
  const meta = source.meta();
  const fork = newSession(sessionsDir, meta.project, meta.title);
  // The restore points' file copies come along, so /undo and /rewind work in the fork as in its source.
  const checkpoints = join(source.dir, "checkpoints");
  if (existsSync(checkpoints)) cpSync(checkpoints, join(fork.dir, "checkpoints"), { recursive: true });
  finish(fork, events);
  return fork;
}

export function exportSession(store: SessionStore): SessionExport {
  const meta = store.meta();
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    session: { id: meta.id, project: meta.project, title: meta.title, created_at: new Date(meta.createdAt).toISOString() },
    events: eventsUpTo(store.events()).filter((e) => !LOCAL_ONLY.has(e.type)),
  };
}

const VARIANTS = new Map<string, (typeof EngineEventVariants)[number]>(EngineEventVariants.map((v) => [v.properties.type.const, v]));

/** Checks a parsed export document; every problem names where it is. */
export function checkExport(doc: unknown): SessionExport {
  const fail = (message: string): never => {
    throw new TransferError("invalid_import", message);
  };
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) fail("not a session export: the file holds no JSON object");
  const d = doc as Record<string, unknown>;
  if (d.format !== EXPORT_FORMAT) fail(`not a session export: format is ${JSON.stringify(d.format)}, expected "${EXPORT_FORMAT}" (made by 'agent sessions export ID --format json')`);
  if (d.version !== EXPORT_VERSION) fail(`session export version ${JSON.stringify(d.version)} is not supported (this agent reads version ${EXPORT_VERSION})`);
  if (!Array.isArray(d.events)) fail("events: expected an array of session events");
  const session = (d.session ?? {}) as Record<string, unknown>;
  (d.events as unknown[]).forEach((event, i) => {
    const type = (event as { type?: unknown })?.type;
    const schema = typeof type === "string" ? VARIANTS.get(type) : undefined;
    if (!schema) fail(`events[${i}]: ${typeof type === "string" ? `unknown event type '${type}'` : "no event type"}`);
    if (LOCAL_ONLY.has(type as string)) fail(`events[${i}]: '${type}' records are not imported (restore points stay with their machine)`);
    const error = Value.Errors(schema!, event).First();
    if (error) fail(`events[${i}] (${type}): ${error.path || "/"} ${error.message}`);
  });
  try {
    foldEvents(d.events as EngineEvent[]);
  } catch (error) {
    fail(`events do not make a conversation: ${(error as Error).message}`);
  }
  return { format: EXPORT_FORMAT, version: EXPORT_VERSION, session: { id: String(session.id ?? ""), project: String(session.project ?? ""), title: typeof session.title === "string" ? session.title : null, created_at: String(session.created_at ?? "") }, events: d.events as EngineEvent[] };
}

/** A new session of `project` in `sessionsDir` (never the exported id) holding the export's history. */
export function importSession(doc: SessionExport, sessionsDir: string, project: string): SessionStore {
  const store = newSession(sessionsDir, project, doc.session.title);
  finish(store, eventsUpTo(doc.events));
  return store;
}

function newSession(sessionsDir: string, project: string, title: string | null): SessionStore {
  const id = newId("ses", Date.now());
  return initSessionDir(join(sessionsDir, id), id, { project, title: title ?? undefined });
}

function finish(store: SessionStore, events: EngineEvent[]): void {
  store.appendEvents([...events, { type: "session_state", state: "stopped", finalized: true }]);
  store.setState("stopped", true);
}

/** A transcript for people: prompts, answers, tool calls with their arguments and results. */
export function exportMarkdown(doc: SessionExport): string {
  const out: string[] = [`# ${doc.session.title ?? doc.session.id}`, "", `Session ${doc.session.id} · ${doc.session.project} · started ${doc.session.created_at}`, ""];
  const fence = (text: string) => {
    const ticks = "`".repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
    return `${ticks}\n${text}\n${ticks}`;
  };
  for (const entry of foldEvents([...doc.events]).entries as ConversationEntry[]) {
    if (entry.role === "user") {
      if (entry.origin !== "prompt") continue;
      out.push("## You", "", entry.content.map((c) => (c.type === "text" ? c.text : `[image ${c.media_type}]`)).join("\n\n"), "");
    } else if (entry.role === "assistant") {
      const parts: string[] = [];
      for (const part of entry.content) {
        if (part.type === "text") parts.push(part.text);
        else if (part.type === "tool_call") parts.push(`**Tool call** \`${part.name}\`\n\n${fence(JSON.stringify(part.arguments, null, 2))}`);
      }
      if (parts.length > 0) out.push(`## Agent (${entry.model})`, "", parts.join("\n\n"), "");
    } else {
      for (const result of entry.results) out.push(`**Result** of \`${result.name}\` (${result.status})`, "", fence(result.output), "");
    }
  }
  return `${out.join("\n").trimEnd()}\n`;
}
