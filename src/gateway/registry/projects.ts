// The project registry: a directory on this machine bound to a registered configuration. Paths are
// stored canonical (symlinks resolved, dots collapsed), so one directory is registered once however it
// is written. Every committed change is signalled to fleet observation. A project belongs to the gateway
// host that registered it (`owner_host`, sessions/ownership.ts): its directory is on that machine, so
// only that host derives its hook status and launches its sessions. A front asks a joined host agent for
// both over its connection (hosts/routing.ts): the path rules of a project registered there, and its hook status.
import { first, type GatewayDb } from "../db/handle.ts";
import { count, eq } from "drizzle-orm";
import { realpathSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { ProtocolError } from "../../protocol/errors.ts";
import { isoAt } from "../../util/clock.ts";
import type { GatewayContext } from "../context.ts";
import type { projects } from "../db/schema.ts";
import { dataRoot } from "../../config/files.ts";
import { otherOwner } from "../sessions/ownership.ts";
import { callHost, hostResult, type RemoteHost } from "../hosts/routing.ts";
import { hookStatus, NO_HOOKS, type HookStatus } from "./hook-status.ts";
import { assertConfigName, newProjectId, PROJECT_ID } from "./names.ts";
import { protectedPaths, refusedProjectPath } from "./project-paths.ts";

export interface ProjectView {
  id: string;
  path: string;
  config_name: string;
  registered_at: string;
  updated_at: string;
  owner_host: string | null;
  hook_status: HookStatus;
}

type Row = typeof projects.$inferSelect;
export type ProjectDeps = Pick<GatewayContext, "db" | "clock" | "fleetChanges" | "dataDir" | "config"> & Partial<Pick<GatewayContext, "routing">>;

const notFound = (id: string) => new ProtocolError("not_found", 404, `no project with id '${id.slice(0, 64)}'`);

/** The canonical form of an existing directory, or a 422 naming what is wrong with `path`. */
export function canonicalProjectPath(path: string): string {
  if (path.length === 0 || path.includes("\0")) throw new ProtocolError("validation_failed", 422, "path: must be a non-empty absolute path on the gateway machine");
  if (!isAbsolute(path)) throw new ProtocolError("validation_failed", 422, `path: ${JSON.stringify(path)} is not absolute; give the directory's absolute path on the gateway machine`);
  let real: string;
  try {
    real = realpathSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" || code === "ENOTDIR" ? "does not exist" : `cannot be resolved (${code ?? "error"})`;
    throw new ProtocolError("validation_failed", 422, `path: the directory ${JSON.stringify(path)} ${why} on the gateway machine`);
  }
  if (!statSync(real).isDirectory()) throw new ProtocolError("validation_failed", 422, `path: ${JSON.stringify(path)} is not a directory`);
  return real;
}

/** 400 `path_not_allowed` naming the directory and why, for a directory that may not be a project (project-paths.ts). */
export function assertProjectPathAllowed(path: string, real: string, deps: Pick<GatewayContext, "dataDir" | "config">, env: Record<string, string | undefined> = process.env): void {
  const { config } = deps;
  // The agent's data root holds local sessions' stores and credentials and, by default, provider auth profiles.
  const secrets = [config.auth.password.pepper_file, config.tls.key_file, config.daemon_sessions.auth_dir, dataRoot(env)];
  const why = refusedProjectPath(real, protectedPaths(deps.dataDir, secrets, env));
  if (why === null) return;
  const shown = real === path ? JSON.stringify(real) : `${JSON.stringify(path)} (${JSON.stringify(real)})`;
  throw new ProtocolError("path_not_allowed", 400, `path: ${shown} cannot be a project: ${why}`);
}

export class ProjectStore {
  constructor(private readonly deps: ProjectDeps) {}

  private async view(row: Row): Promise<ProjectView> {
    return {
      id: row.id,
      path: row.path,
      config_name: row.configName,
      registered_at: isoAt(row.registeredAt),
      updated_at: isoAt(row.updatedAt),
      owner_host: row.ownerHost,
      hook_status: await this.hooks(row),
    };
  }

  /**
   * Read on the project's host: here, or asked of a joined host this front is connected to. Another
   * host's directory is not on this machine (a directory of the same name here is another one), so a
   * project whose host cannot be asked now reads as having no gateway.yaml, as an unreadable one does.
   */
  private async hooks(row: Row): Promise<HookStatus> {
    const owner = otherOwner(row.ownerHost, this.deps.config.host_name);
    if (owner === null) return hookStatus(row.path);
    const connection = this.deps.routing?.link(owner);
    if (!connection) return NO_HOOKS;
    try {
      const status = await hostResult<Partial<HookStatus> | null>(await callHost({ host: owner, connection }, "GET", `/host/v1/projects/${row.id}/hook-status`));
      const hooks = status?.configured_hooks;
      if (typeof status?.has_gateway_yaml !== "boolean" || !Array.isArray(hooks) || !hooks.every((h) => typeof h === "string")) return NO_HOOKS;
      return { has_gateway_yaml: status.has_gateway_yaml, configured_hooks: hooks };
    } catch {
      return NO_HOOKS;
    }
  }

  private async row(id: string, db: GatewayDb = this.deps.db): Promise<Row | undefined> {
    if (!PROJECT_ID.test(id)) return undefined;
    return first(db.select().from(db.t.projects).where(eq(db.t.projects.id, id)));
  }

  async list(): Promise<ProjectView[]> {
    return await Promise.all((await this.deps.db.select().from(this.deps.db.t.projects).orderBy(this.deps.db.t.projects.path)).map((r) => this.view(r)));
  }

  async get(id: string): Promise<ProjectView> {
    const row = await this.row(id);
    if (!row) throw notFound(id);
    return this.view(row);
  }

  /**
   * Registers the directory `path` of host `host` (this gateway host when left out): its canonical form and
   * path rules are checked on that host (`POST /host/v1/projects/check-path` for a joined host agent).
   */
  async register(path: string, configName: string, host?: string): Promise<ProjectView> {
    assertConfigName(configName, "config_name");
    const remote = this.deps.routing ? await this.deps.routing.projectHost(host) : null;
    const canonical = remote ? await this.checkPathOn(remote, path) : canonicalProjectPath(path);
    if (!remote) assertProjectPathAllowed(path, canonical, this.deps);
    const ownerHost = remote?.host ?? this.deps.config.host_name;
    const now = this.deps.clock.now();
    const id = await this.deps.db.tx(async (tx) => {
      if (!(await first(tx.select({ name: this.deps.db.t.configurations.name }).from(this.deps.db.t.configurations).where(eq(this.deps.db.t.configurations.name, configName))))) {
        throw new ProtocolError("validation_failed", 422, `config_name: no configuration named '${configName}'; register it first`);
      }
      const existing = await first(tx.select({ id: this.deps.db.t.projects.id }).from(this.deps.db.t.projects).where(eq(this.deps.db.t.projects.path, canonical)));
      if (existing) throw new ProtocolError("conflict", 409, `the directory ${JSON.stringify(canonical)} is already registered as project ${existing.id}`);
      let fresh = newProjectId();
      while ((await first(tx.select({ id: this.deps.db.t.projects.id }).from(this.deps.db.t.projects).where(eq(this.deps.db.t.projects.id, fresh))))) fresh = newProjectId();
      await tx.insert(this.deps.db.t.projects).values({ id: fresh, path: canonical, configName, registeredAt: now, updatedAt: now, ownerHost });
      return fresh;
    });
    await this.deps.fleetChanges.touch({ kind: "project", id });
    return this.get(id);
  }

  /** The canonical path on the host, after its path rules; the host's 400/422 answers are this request's. */
  private async checkPathOn(remote: RemoteHost, path: string): Promise<string> {
    const answer = await callHost(remote, "POST", "/host/v1/projects/check-path", { body: JSON.stringify({ path }), headers: { "content-type": "application/json" } });
    const checked = await hostResult<{ path?: unknown }>(answer);
    if (typeof checked?.path !== "string") throw new ProtocolError("bad_gateway", 502, `host ${remote.host} answered the path check without a path`);
    return checked.path;
  }

  /** Binds the project to another configuration; 404 when either is missing. */
  async rebind(id: string, configName: string): Promise<ProjectView> {
    assertConfigName(configName, "config_name");
    await this.deps.db.tx(async (tx) => {
      if (!(await this.row(id, tx))) throw notFound(id);
      if (!(await first(tx.select({ name: this.deps.db.t.configurations.name }).from(this.deps.db.t.configurations).where(eq(this.deps.db.t.configurations.name, configName))))) {
        throw new ProtocolError("not_found", 404, `no configuration named '${configName}'`);
      }
      await tx.update(this.deps.db.t.projects).set({ configName, updatedAt: this.deps.clock.now() }).where(eq(this.deps.db.t.projects.id, id));
    });
    await this.deps.fleetChanges.touch({ kind: "project", id });
    return this.get(id);
  }

  /** Unregisters a project; its sessions must be deleted first (they run in its directory). */
  async remove(id: string): Promise<void> {
    await this.deps.db.tx(async (tx) => {
      if (!(await this.row(id, tx))) throw notFound(id);
      const n = (await first(tx.select({ n: count() }).from(this.deps.db.t.sessions).where(eq(this.deps.db.t.sessions.projectId, id))))?.n ?? 0;
      if (n > 0) throw new ProtocolError("conflict", 409, `project ${id} has ${n} session(s); delete them first`);
      await tx.delete(this.deps.db.t.projects).where(eq(this.deps.db.t.projects.id, id));
    });
    await this.deps.fleetChanges.touch({ kind: "project", id });
  }
}
