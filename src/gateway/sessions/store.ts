// What the session supervisor keeps in the gateway's database, as one interface (issue 39, the session
// store contract of docs/gateway-hosts.md): the supervisor's steps reach the database only through it, so
// the same supervisor runs in `agent gateway serve` (DbSessionStore: the database itself) and in a host
// agent, which has no database credentials (each call one request to a front over the host's connection:
// `POST /front/v1/store/<method>` `{args}` -> `{result}`, served by hosts/front-store.ts). Every argument
// and result is plain JSON; an error is a ProtocolError with the status the database store raises.
import type { projects } from "../db/schema.ts";
import type { RegistryFormat } from "../registry/config-content.ts";
import type { InvalidationCause, IssuedCredential } from "./credentials.ts";
import type { SessionPatch, SessionRow, SessionView } from "./registry.ts";
import type { LaunchMode, SessionState, TransitionTrigger } from "./transitions.ts";

export type ProjectRow = typeof projects.$inferSelect;

/** A new session row (it starts in `starting`); `ownerHost` is the host that supervises it. */
export interface NewSessionRow {
  id: string;
  projectId: string;
  launchMode: LaunchMode;
  sessionDir: string;
  worktreePath: string | null;
  worktreeBranch: string | null;
  ownerHost?: string;
}

/** A registered configuration's files, as a launch writes them for its daemon (launch-generation.ts). */
export interface LaunchConfig {
  format: RegistryFormat;
  content: string;
  /** The `pre-run.sh` script's text, null when the configuration has none. */
  preRunScript: string | null;
}

export interface SessionStore {
  /** The row, undefined when there is none. */
  session(id: string): Promise<SessionRow | undefined>;
  /** Every row, newest first (a host agent's store: only the rows of its host). */
  sessions(): Promise<SessionRow[]>;
  insert(row: NewSessionRow): Promise<SessionRow>;
  /** Fields that are not the state (process identity, port, epoch); no history entry. */
  update(id: string, patch: SessionPatch): Promise<void>;
  /**
   * Compare-and-set: moves the session from one of `from` to `to` with `patch`, and appends a history
   * entry; false (nothing changed) when the row is gone or in another state. `committed` (local to the
   * caller, never sent) runs once the move is committed.
   */
  transition(id: string, from: readonly SessionState[], to: SessionState, trigger: TransitionTrigger, detail?: string, patch?: SessionPatch, committed?: () => void): Promise<boolean>;
  remove(id: string): Promise<void>;
  /** The record on the wire (gateway.md, Session record). */
  view(row: SessionRow): Promise<SessionView>;
  /**
   * A new service credential generation for the session's next daemon; it becomes the current one. The
   * store generates the token and keeps only its verifier (a host agent never holds the pepper).
   */
  issueCredential(sessionId: string, capabilities: unknown): Promise<IssuedCredential>;
  /** Invalidates every live generation of the session, recording why. */
  invalidateCredentials(sessionId: string, cause: InvalidationCause): Promise<void>;
  project(id: string): Promise<ProjectRow | undefined>;
  /** The configuration's files; 404 `not_found` naming it when it has none. */
  launchConfig(configName: string): Promise<LaunchConfig>;
}

/** The wire of a store served to host agents: `POST <STORE_PATH><method>` `{ args: [...] }` -> `200 { result }`. */
export const STORE_PATH = "/front/v1/store/";

/** Every method of the contract, as named on the wire. */
export const STORE_METHODS = ["session", "sessions", "insert", "update", "transition", "remove", "view", "issueCredential", "invalidateCredentials", "project", "launchConfig"] as const satisfies readonly (keyof SessionStore)[];
export type StoreMethod = (typeof STORE_METHODS)[number];
