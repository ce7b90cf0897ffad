// The configuration registry: rows in the database, with the content and the pre-run script, and files
// under `<data dir>/configurations/<name>/` (`config.yaml` or `config.toml`, optional `pre-run.sh`).
// Compensation (gateway.md): a create writes its files inside the insert's transaction, so a failed write
// rolls the insert back; an update writes the new file, then commits the row, then removes the old file,
// restoring what it overwrote when anything fails; a delete commits first and removes the directory after.
// Replicas of one database (decisions-gateway 69): the row's content is what every replica serves and
// launches; each replica's files follow it when read (`current`), so files written on another replica,
// or left by a deleted configuration, are replaced or removed. Rows from before (content null) are read
// from the files and their content stored the first time a host that has them reads or lists them.
import { first } from "../db/handle.ts";
import { and, count, eq, isNull } from "drizzle-orm";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { ProtocolError } from "../../protocol/errors.ts";
import { isoAt } from "../../util/clock.ts";
import type { GatewayContext } from "../context.ts";
import type { configurations } from "../db/schema.ts";
import { checkConfigContent, type ContentProblem, type RegistryFormat } from "./config-content.ts";
import { assertConfigName, CONFIG_NAME_MAX, CONFIG_NAME_PATTERN } from "./names.ts";
import { nodeRegistryFs, type RegistryFs } from "./registry-fs.ts";

/** Config files may hold provider keys: owner-only. The pre-run script is executed by the gateway's user. */
export const CONFIG_FILE_MODE = 0o600;
export const PRE_RUN_MODE = 0o700;
export const CONFIG_DIR_MODE = 0o700;
export const PRE_RUN_FILE = "pre-run.sh";

export interface ConfigurationView {
  name: string;
  format: RegistryFormat;
  created_at: string;
  updated_at: string;
  bound_projects: number;
  has_pre_run_script: boolean;
}

export interface ConfigurationDetail extends ConfigurationView {
  config_content: string;
  pre_run_script: string | null;
}

export interface CreateConfiguration {
  name: string;
  config_content: string;
  config_format: RegistryFormat;
  pre_run_script?: string;
}

export interface UpdateConfiguration {
  config_content?: string;
  config_format?: RegistryFormat;
  pre_run_script?: string;
}

/** A configuration as stored: what GET returns and what a session launches. */
export interface CurrentConfiguration {
  row: Row;
  format: RegistryFormat;
  content: string;
  /** Null when the configuration has no pre-run script. */
  preRunScript: string | null;
}

type Row = typeof configurations.$inferSelect;
export type RegistryDeps = Pick<GatewayContext, "db" | "clock" | "dataDir" | "logger" | "registryFs">;

export function configurationDir(dataDir: string, name: string): string {
  return join(dataDir, "configurations", assertConfigName(name));
}

/** Where a registered configuration's files are (for the session supervisor). */
export function configurationFiles(dataDir: string, name: string, format: RegistryFormat): { dir: string; config: string; preRun: string } {
  const dir = configurationDir(dataDir, name);
  return { dir, config: join(dir, `config.${format}`), preRun: join(dir, PRE_RUN_FILE) };
}

const notFound = (name: string) => new ProtocolError("not_found", 404, `no configuration named '${name}'`);
const CONFIG_NAME = new RegExp(CONFIG_NAME_PATTERN);
const filesFailed = (what: string) => new ProtocolError("unavailable", 503, `the configuration files could not be ${what}; nothing was changed`);

function invalidContent(format: RegistryFormat, problems: ContentProblem[]): ProtocolError {
  const shown = problems.slice(0, 10).map((p) => {
    const at = p.line ? ` (line ${p.line}${p.column ? `:${p.column}` : ""})` : "";
    return `${p.path}: ${p.message}${p.allowed ? ` (allowed: ${p.allowed})` : ""}${at}`;
  });
  const more = problems.length > shown.length ? `; and ${problems.length - shown.length} more` : "";
  return new ProtocolError("validation_failed", 422, `config_content is not a valid ${format} app config: ${shown.join("; ")}${more}`);
}

function checkContent(text: string, format: RegistryFormat): void {
  const problems = checkConfigContent(text, format);
  if (problems.length) throw invalidContent(format, problems);
}

export class ConfigurationStore {
  constructor(private readonly deps: RegistryDeps) {}

  private get fs(): RegistryFs {
    return this.deps.registryFs ?? nodeRegistryFs;
  }

  private async boundCounts(): Promise<Map<string, number>> {
    const rows = (await this.deps.db.select({ name: this.deps.db.t.projects.configName, n: count() }).from(this.deps.db.t.projects).groupBy(this.deps.db.t.projects.configName));
    return new Map(rows.map((r) => [r.name, r.n]));
  }

  private view(row: Row, bound: number): ConfigurationView {
    return {
      name: row.name,
      format: row.format,
      created_at: isoAt(row.createdAt),
      updated_at: isoAt(row.updatedAt),
      bound_projects: bound,
      has_pre_run_script: row.hasPreRunScript,
    };
  }

  private async row(name: string): Promise<Row | undefined> {
    return (await first(this.deps.db.select().from(this.deps.db.t.configurations).where(eq(this.deps.db.t.configurations.name, name))));
  }

  async exists(name: string): Promise<boolean> {
    return (await this.row(name)) !== undefined;
  }

  async list(): Promise<ConfigurationView[]> {
    const bound = await this.boundCounts();
    const rows = await this.deps.db.select().from(this.deps.db.t.configurations).orderBy(this.deps.db.t.configurations.name);
    this.sweep(new Set(rows.map((r) => r.name)));
    // A list on the host that has the files of rows from before (a SQLite gateway's, imported) stores them
    // all for the other replicas; a row whose files are not here, or not readable, waits for another host.
    for (const row of rows) if (row.content === null) await this.adopt(row).catch(() => undefined);
    return rows.map((r) => this.view(r, bound.get(r.name) ?? 0));
  }

  async get(name: string): Promise<ConfigurationDetail> {
    const current = await this.current(name);
    if (!current) throw new ProtocolError("unavailable", 503, this.filesElsewhere(name));
    return { ...this.view(current.row, (await this.boundCounts()).get(name) ?? 0), config_content: current.content, pre_run_script: current.preRunScript };
  }

  /**
   * The configuration as stored, for GET and for a session's launch. The row's content wins, and this
   * host's files are brought in line with it (best effort: the database is what is served). A row from
   * before the content was stored reads this host's files and stores them in the row; undefined when this
   * host has no files for it. No row: 404, and a directory left here by a delete on another replica goes.
   */
  async current(name: string): Promise<CurrentConfiguration | undefined> {
    assertConfigName(name);
    const row = await this.row(name);
    if (!row) {
      this.removeQuietly(configurationDir(this.deps.dataDir, name));
      throw notFound(name);
    }
    if (row.content !== null) {
      this.mirror(name, row.format, row.content, row.preRunScript);
      return { row, format: row.format, content: row.content, preRunScript: row.preRunScript };
    }
    const stored = await this.adopt(row);
    return stored && { row, format: row.format, ...stored };
  }

  /** Stores this host's files in a row from before the content was stored; undefined when they are not here. */
  private async adopt(row: Row): Promise<{ content: string; preRunScript: string | null } | undefined> {
    const stored = this.readFiles(row.name, row);
    if (!stored) return undefined;
    const { configurations: c } = this.deps.db.t;
    // Only the row as read: an update committed meanwhile (through any replica) stored its own content.
    await this.deps.db.update(c).set({ content: stored.content, preRunScript: stored.preRunScript }).where(and(eq(c.name, row.name), isNull(c.content), eq(c.updatedAt, row.updatedAt)));
    return stored;
  }

  /** Why a configuration from before the database held content cannot be read on this host. */
  filesElsewhere(name: string): string {
    return `configuration '${name}' was stored before the gateway kept configurations in its database, and its files are not in this host's data directory (${configurationDir(this.deps.dataDir, name)}): read it once through the gateway whose data directory has them (GET /api/v1/configurations/${name}), which stores it in the database for every replica`;
  }

  /** A row without content: this host's files, undefined when the config file is not here. */
  private readFiles(name: string, row: Row): { content: string; preRunScript: string | null } | undefined {
    const files = configurationFiles(this.deps.dataDir, name, row.format);
    try {
      const content = this.fs.readFile(files.config);
      if (content === undefined) return undefined;
      return { content, preRunScript: (row.hasPreRunScript ? this.fs.readFile(files.preRun) : undefined) ?? null };
    } catch (error) {
      this.deps.logger.error(`configuration ${name}: cannot read its files (${(error as NodeJS.ErrnoException).code ?? "read error"})`);
      throw new ProtocolError("unavailable", 503, `the files of configuration '${name}' cannot be read`);
    }
  }

  /** Brings this host's files in line with the stored configuration; a failure is logged, never raised. */
  private mirror(name: string, format: RegistryFormat, content: string, script: string | null): void {
    const files = configurationFiles(this.deps.dataDir, name, format);
    try {
      if (this.fs.readFile(files.config) !== content) {
        this.fs.mkdir(files.dir, CONFIG_DIR_MODE);
        this.fs.writeFile(files.config, content, CONFIG_FILE_MODE);
      }
      if (script === null) this.fs.remove(files.preRun);
      else if (this.fs.readFile(files.preRun) !== script) this.fs.writeFile(files.preRun, script, PRE_RUN_MODE);
      this.fs.remove(configurationFiles(this.deps.dataDir, name, format === "yaml" ? "toml" : "yaml").config);
    } catch (error) {
      this.deps.logger.warn(`configuration ${name}: its files under ${files.dir} could not be brought up to date (${(error as NodeJS.ErrnoException).code ?? (error as Error).name}); it is served from the database`);
    }
  }

  /** Directories of configurations deleted through another replica (this host's copy of their content). */
  private sweep(names: Set<string>): void {
    const root = join(this.deps.dataDir, "configurations");
    let entries: string[];
    try {
      entries = readdirSync(root);
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.length <= CONFIG_NAME_MAX && CONFIG_NAME.test(entry) && !names.has(entry)) this.removeQuietly(join(root, entry));
    }
  }

  async create(input: CreateConfiguration): Promise<ConfigurationView> {
    const name = assertConfigName(input.name);
    checkContent(input.config_content, input.config_format);
    const files = configurationFiles(this.deps.dataDir, name, input.config_format);
    const script = input.pre_run_script ? input.pre_run_script : undefined;
    const now = this.deps.clock.now();
    let wrote = false;
    try {
      await this.deps.db.tx(async (tx) => {
        if ((await first(tx.select({ name: this.deps.db.t.configurations.name }).from(this.deps.db.t.configurations).where(eq(this.deps.db.t.configurations.name, name))))) {
          throw new ProtocolError("conflict", 409, `a configuration named '${name}' already exists`);
        }
        await tx.insert(this.deps.db.t.configurations).values({ name, format: input.config_format, hasPreRunScript: script !== undefined, content: input.config_content, preRunScript: script ?? null, createdAt: now, updatedAt: now });
        // Leftovers of an earlier best-effort delete are not this configuration's files.
        this.fs.remove(files.dir);
        wrote = true;
        this.fs.mkdir(files.dir, CONFIG_DIR_MODE);
        this.fs.writeFile(files.config, input.config_content, CONFIG_FILE_MODE);
        if (script !== undefined) this.fs.writeFile(files.preRun, script, PRE_RUN_MODE);
      });
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      if (wrote) this.removeQuietly(files.dir);
      this.deps.logger.error(`configuration ${name}: create failed, insert rolled back (${(error as NodeJS.ErrnoException).code ?? (error as Error).name})`);
      throw filesFailed("written");
    }
    return this.view((await this.row(name))!, 0);
  }

  async update(name: string, patch: UpdateConfiguration): Promise<ConfigurationView> {
    assertConfigName(name);
    if (patch.config_content === undefined && patch.config_format === undefined && patch.pre_run_script === undefined) {
      throw new ProtocolError("validation_failed", 422, "the update names no field; send at least one of config_content, config_format, pre_run_script");
    }
    // What each write replaces, so a failure can put it back.
    const undo: Array<{ path: string; before: string | undefined; mode: number }> = [];
    const write = (path: string, data: string, mode: number) => {
      undo.push({ path, before: this.fs.readFile(path), mode });
      this.fs.writeFile(path, data, mode);
    };
    let stored: { format: RegistryFormat; content: string; script: string | null } | undefined;
    try {
      // The row is read inside the transaction: updates through other replicas are serialized with this one,
      // and the fields this patch leaves alone keep what the last of them stored.
      await this.deps.db.tx(async (tx) => {
        const { configurations: c } = this.deps.db.t;
        const row = await first(tx.select().from(c).where(eq(c.name, name)));
        if (!row) throw notFound(name);
        const format = patch.config_format ?? row.format;
        if (format !== row.format && patch.config_content === undefined) {
          throw new ProtocolError("validation_failed", 422, `config_format: changing the format from ${row.format} to ${format} needs config_content written in ${format}`);
        }
        if (patch.config_content !== undefined) checkContent(patch.config_content, format);
        // A row from before the content was stored takes what the patch leaves alone from this host's files.
        const needsFiles = row.content === null && (patch.config_content === undefined || (patch.pre_run_script === undefined && row.hasPreRunScript));
        const before = needsFiles ? this.readFiles(name, row) : undefined;
        if (needsFiles && !before) throw new ProtocolError("unavailable", 503, this.filesElsewhere(name));
        const content = patch.config_content ?? row.content ?? before!.content;
        const script = patch.pre_run_script === undefined ? (row.content !== null ? row.preRunScript : (before?.preRunScript ?? null)) : patch.pre_run_script || null;
        const files = configurationFiles(this.deps.dataDir, name, format);
        // This replica may never have had the directory (the configuration was created through another).
        this.fs.mkdir(files.dir, CONFIG_DIR_MODE);
        if (patch.config_content !== undefined) write(files.config, patch.config_content, CONFIG_FILE_MODE);
        if (patch.pre_run_script) write(files.preRun, patch.pre_run_script, PRE_RUN_MODE);
        await tx.update(c).set({ format, hasPreRunScript: script !== null, content, preRunScript: script, updatedAt: this.deps.clock.now() }).where(eq(c.name, name));
        stored = { format, content, script };
      });
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      this.restore(name, undo);
      this.deps.logger.error(`configuration ${name}: update failed, rolled back (${(error as NodeJS.ErrnoException).code ?? (error as Error).name})`);
      throw filesFailed("written");
    }
    // Committed: the old format's file and a deleted script go last (best effort; the row no longer points
    // at them), and what this replica had not written yet follows the row.
    this.mirror(name, stored!.format, stored!.content, stored!.script);
    return this.view((await this.row(name))!, (await this.boundCounts()).get(name) ?? 0);
  }

  async delete(name: string): Promise<void> {
    assertConfigName(name);
    await this.deps.db.tx(async (tx) => {
      if (!(await first(tx.select({ name: this.deps.db.t.configurations.name }).from(this.deps.db.t.configurations).where(eq(this.deps.db.t.configurations.name, name))))) throw notFound(name);
      const bound = (await first(tx.select({ n: count() }).from(this.deps.db.t.projects).where(eq(this.deps.db.t.projects.configName, name))))?.n ?? 0;
      if (bound > 0) throw new ProtocolError("conflict", 409, `configuration '${name}' is bound to ${bound} project(s); remove or rebind them first`);
      await tx.delete(this.deps.db.t.configurations).where(eq(this.deps.db.t.configurations.name, name));
    });
    this.removeQuietly(configurationDir(this.deps.dataDir, name));
  }

  private restore(name: string, undo: Array<{ path: string; before: string | undefined; mode: number }>): void {
    for (const step of undo.reverse()) {
      try {
        if (step.before === undefined) this.fs.remove(step.path);
        else this.fs.writeFile(step.path, step.before, step.mode);
      } catch (error) {
        this.deps.logger.error(`configuration ${name}: could not restore ${step.path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).name})`);
      }
    }
  }

  private removeQuietly(path: string): void {
    try {
      this.fs.remove(path);
    } catch (error) {
      this.deps.logger.warn(`could not remove ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).name}); it is no longer registered`);
    }
  }
}
