// The session store on the gateway's own database (`agent gateway serve`): the session rows and their
// history (registry.ts), the service credentials (credentials.ts), the project rows and the configuration
// registry (registry/configurations.ts). Fronts also serve it to host agents (hosts/front-store.ts).
import { eq } from "drizzle-orm";
import { ProtocolError } from "../../protocol/errors.ts";
import { redactText } from "../../util/redact.ts";
import type { GatewayContext, Logger } from "../context.ts";
import { first } from "../db/handle.ts";
import { logEvent } from "../auth/failure-counts.ts";
import { hostOnline } from "../hosts/presence.ts";
import { ConfigurationStore } from "../registry/configurations.ts";
import { ServiceCredentials, type InvalidationCause, type IssuedCredential } from "./credentials.ts";
import { SessionRegistry, type SessionPatch, type SessionRow, type SessionView } from "./registry.ts";
import type { LaunchConfig, NewSessionRow, ProjectRow, SessionStore } from "./store.ts";
import type { SessionState, TransitionTrigger } from "./transitions.ts";

/** What the database store uses. */
export type DbStoreDeps = Pick<GatewayContext, "clock" | "config" | "dataDir" | "db" | "fleetChanges" | "pepper"> & { logger: Logger };

export class DbSessionStore implements SessionStore {
  readonly registry: SessionRegistry;
  readonly credentials: ServiceCredentials;

  constructor(private readonly deps: DbStoreDeps) {
    this.credentials = new ServiceCredentials(deps.db, deps.pepper, deps.clock);
    // Every state change is a log line where it is written: launches (starting -> running), failures with
    // their reason, stops, idle exits, deletes.
    this.registry = new SessionRegistry(deps.db, deps.clock, deps.fleetChanges, this.credentials, ({ id, from, to, trigger, detail, patch, pid }) =>
      logEvent(deps.logger, to === "failed" ? "error" : "info", `session.${to}`, { session: id, from, trigger, ...(detail ? { detail: redactText(detail) } : {}), ...(to === "running" ? { pid } : {}), ...(patch.port ? { port: patch.port } : {}), ...(patch.daemonEpoch ? { daemon_epoch: patch.daemonEpoch } : {}) }),
      (host) => hostOnline(deps, host),
    );
  }

  session(id: string): Promise<SessionRow | undefined> {
    return this.registry.get(id);
  }

  sessions(): Promise<SessionRow[]> {
    return this.registry.list();
  }

  insert(row: NewSessionRow): Promise<SessionRow> {
    return this.registry.insert(row);
  }

  update(id: string, patch: SessionPatch): Promise<void> {
    return this.registry.update(id, patch);
  }

  transition(id: string, from: readonly SessionState[], to: SessionState, trigger: TransitionTrigger, detail?: string, patch?: SessionPatch, committed?: () => void): Promise<boolean> {
    return this.registry.transition(id, from, to, trigger, detail, patch, committed);
  }

  remove(id: string): Promise<void> {
    return this.registry.remove(id);
  }

  view(row: SessionRow): Promise<SessionView> {
    return this.registry.view(row);
  }

  issueCredential(sessionId: string, capabilities: unknown): Promise<IssuedCredential> {
    return this.credentials.issue(sessionId, capabilities);
  }

  invalidateCredentials(sessionId: string, cause: InvalidationCause): Promise<void> {
    return this.credentials.invalidate(sessionId, cause);
  }

  async project(id: string): Promise<ProjectRow | undefined> {
    const { db } = this.deps;
    return await first(db.select().from(db.t.projects).where(eq(db.t.projects.id, id)));
  }

  /**
   * The configuration as the registry stores it (its row's content, on every replica of one database; this
   * host's files for a row from before, stored in the row as they are read). 404 when there is none.
   */
  async launchConfig(configName: string): Promise<LaunchConfig> {
    const registry = new ConfigurationStore(this.deps);
    const current = await registry.current(configName);
    if (!current) throw new ProtocolError("not_found", 404, registry.filesElsewhere(configName));
    return { format: current.format, content: current.content, preRunScript: current.preRunScript };
  }
}
