// The configuration registry: metadata rows in the database, files under
// `<data dir>/configurations/<name>/` (`config.yaml` or `config.toml`, optional `pre-run.sh`).
// Compensation (gateway.md): a create writes its files inside the insert's transaction, so a failed write
// rolls the insert back; an update writes the new file, then commits the row, then removes the old file,
// restoring what it overwrote when anything fails; a delete commits first and removes the directory after.
import { first } from "../db/handle.ts";
import { count, eq } from "drizzle-orm";
import { join } from "node:path";
import { ProtocolError } from "../../protocol/errors.ts";
import { isoAt } from "../../util/clock.ts";
import type { GatewayContext } from "../context.ts";
import type { configurations } from "../db/schema.ts";
import { checkConfigContent, type ContentProblem, type RegistryFormat } from "./config-content.ts";
import { assertConfigName } from "./names.ts";
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
    return (await this.deps.db.select().from(this.deps.db.t.configurations).orderBy(this.deps.db.t.configurations.name)).map((r) => this.view(r, bound.get(r.name) ?? 0));
  }

  async get(name: string): Promise<ConfigurationDetail> {
    assertConfigName(name);
    const row = await this.row(name);
    if (!row) throw notFound(name);
    const files = configurationFiles(this.deps.dataDir, name, row.format);
    let content: string | undefined;
    let script: string | undefined;
    try {
      content = this.fs.readFile(files.config);
      script = row.hasPreRunScript ? this.fs.readFile(files.preRun) : undefined;
    } catch (error) {
      this.deps.logger.error(`configuration ${name}: cannot read its files (${(error as NodeJS.ErrnoException).code ?? "read error"})`);
      throw new ProtocolError("unavailable", 503, `the files of configuration '${name}' cannot be read`);
    }
    if (content === undefined) throw new ProtocolError("unavailable", 503, `the config file of configuration '${name}' is missing from the data directory`);
    return { ...this.view(row, (await this.boundCounts()).get(name) ?? 0), config_content: content, pre_run_script: script ?? null };
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
        await tx.insert(this.deps.db.t.configurations).values({ name, format: input.config_format, hasPreRunScript: script !== undefined, createdAt: now, updatedAt: now });
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
    const row = await this.row(name);
    if (!row) throw notFound(name);
    const format = patch.config_format ?? row.format;
    if (format !== row.format && patch.config_content === undefined) {
      throw new ProtocolError("validation_failed", 422, `config_format: changing the format from ${row.format} to ${format} needs config_content written in ${format}`);
    }
    if (patch.config_content !== undefined) checkContent(patch.config_content, format);
    const oldFiles = configurationFiles(this.deps.dataDir, name, row.format);
    const newFiles = configurationFiles(this.deps.dataDir, name, format);
    const removeScript = patch.pre_run_script === "";
    const hasScript = patch.pre_run_script === undefined ? row.hasPreRunScript : !removeScript;

    // What each write replaces, so a failure can put it back.
    const undo: Array<{ path: string; before: string | undefined; mode: number }> = [];
    const write = (path: string, data: string, mode: number) => {
      undo.push({ path, before: this.fs.readFile(path), mode });
      this.fs.writeFile(path, data, mode);
    };
    try {
      await this.deps.db.tx(async (tx) => {
        if (patch.config_content !== undefined) write(newFiles.config, patch.config_content, CONFIG_FILE_MODE);
        if (patch.pre_run_script) write(newFiles.preRun, patch.pre_run_script, PRE_RUN_MODE);
        await tx.update(this.deps.db.t.configurations).set({ format, hasPreRunScript: hasScript, updatedAt: this.deps.clock.now() }).where(eq(this.deps.db.t.configurations.name, name));
      });
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      this.restore(name, undo);
      this.deps.logger.error(`configuration ${name}: update failed, rolled back (${(error as NodeJS.ErrnoException).code ?? (error as Error).name})`);
      throw filesFailed("written");
    }
    // Committed: the old format's file and a deleted script go last (best effort; the row no longer points at them).
    if (format !== row.format) this.removeQuietly(oldFiles.config);
    if (removeScript) this.removeQuietly(oldFiles.preRun);
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
