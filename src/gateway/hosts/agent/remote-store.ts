// The session store of a host agent (docs/decisions-gateway.md 68): the supervisor's database reads and
// writes, each one HTTP request over the mux to a connected front, `POST /front/v1/store/<method>` with
// `{args}`, answered `200 {result}` or `{error, message}` with the status the database store would raise.
// The front checks every call against the connection's host and writes on its behalf; the host holds no
// database credentials and no pepper (the front generates a daemon credential and returns its token).
import { ProtocolError } from "../../../protocol/errors.ts";
import type { InvalidationCause, IssuedCredential } from "../../sessions/credentials.ts";
import type { SessionPatch, SessionRow, SessionView } from "../../sessions/registry.ts";
import { STORE_PATH, type LaunchConfig, type NewSessionRow, type ProjectRow, type SessionStore } from "../../sessions/store.ts";
import type { SessionState, TransitionTrigger } from "../../sessions/transitions.ts";

/** A daemon this host runs, as it re-announces it after (re)connecting (the front records it on the session's row). */
export interface AnnouncedDaemon {
  sessionId: string;
  pid: number;
  startTicks: string;
  port: number;
  daemonEpoch: string | null;
}

/** Where store calls go: a front that answers (agent/fronts.ts). */
export interface StoreTransport {
  fetch(make: () => Request): Promise<Response>;
}

/** How long a store call may wait for its answer: one database operation on the front, so a front that keeps a call longer is stuck. */
export const STORE_CALL_TIMEOUT_MS = 30_000;

export class RemoteSessionStore implements SessionStore {
  constructor(
    private readonly fronts: StoreTransport,
    private readonly timeoutMs = STORE_CALL_TIMEOUT_MS,
  ) {}

  /** One call: the method's name, its JSON arguments; the front's `result`, or its error as a ProtocolError. */
  private async call<T>(method: string, ...args: unknown[]): Promise<T> {
    const body = JSON.stringify({ args });
    // A stuck front must not hold a supervisor operation (and its session) forever; the call is not sent
    // elsewhere (it may have been applied there).
    const signal = AbortSignal.timeout(this.timeoutMs);
    let text: string;
    let response: Response;
    try {
      response = await this.fronts.fetch(() => new Request(`http://front${STORE_PATH}${method}`, { method: "POST", headers: { "content-type": "application/json" }, body, signal }));
      text = await response.text();
    } catch (error) {
      if (signal.aborted) throw new ProtocolError("gateway_timeout", 504, `the gateway front did not answer the store call ${method} within ${this.timeoutMs / 1000}s`);
      throw error;
    }
    let parsed: { result?: T; error?: string; message?: string } = {};
    try {
      parsed = text ? (JSON.parse(text) as typeof parsed) : {};
    } catch {
      // Not JSON: reported below with the status, never echoed.
    }
    if (response.status === 200) return parsed.result as T;
    throw new ProtocolError(parsed.error ?? "store_failed", response.status, parsed.message ?? `the front answered the store call ${method} with ${response.status}`);
  }

  session(id: string): Promise<SessionRow | undefined> {
    return this.call<SessionRow | null>("session", id).then((row) => row ?? undefined);
  }

  /** This host's sessions only (the front filters by the connection's host). */
  sessions(): Promise<SessionRow[]> {
    return this.call("sessions");
  }

  /** The front makes the row this host's, whatever `ownerHost` says. */
  insert(row: NewSessionRow): Promise<SessionRow> {
    return this.call("insert", row);
  }

  update(id: string, patch: SessionPatch): Promise<void> {
    return this.call("update", id, patch);
  }

  /** Compare-and-set on the front; `committed` runs here once the front says the move was made. */
  async transition(id: string, from: readonly SessionState[], to: SessionState, trigger: TransitionTrigger, detail?: string, patch: SessionPatch = {}, committed?: () => void): Promise<boolean> {
    const moved = await this.call<boolean>("transition", id, from, to, trigger, detail ?? null, patch);
    if (moved) committed?.();
    return moved;
  }

  remove(id: string): Promise<void> {
    return this.call("remove", id);
  }

  view(row: SessionRow): Promise<SessionView> {
    return this.call("view", row);
  }

  /** A fresh service credential generation; the front stores its verifier and hands the token back once. */
  issueCredential(sessionId: string, capabilities: unknown): Promise<IssuedCredential> {
    return this.call("issueCredential", sessionId, capabilities);
  }

  invalidateCredentials(sessionId: string, cause: InvalidationCause): Promise<void> {
    return this.call("invalidateCredentials", sessionId, cause);
  }

  project(id: string): Promise<ProjectRow | undefined> {
    return this.call<ProjectRow | null>("project", id).then((row) => row ?? undefined);
  }

  launchConfig(configName: string): Promise<LaunchConfig> {
    return this.call("launchConfig", configName);
  }

  /** After a (re)connection: the daemons alive here, so the front records them (pid, start ticks, port, epoch). */
  announce(daemons: AnnouncedDaemon[]): Promise<void> {
    return this.call("announce", daemons);
  }
}
