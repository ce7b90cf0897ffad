// Runs the session daemon process: checks the flags and the credential, hosts the engine built from the
// project's config, prints the ready line, and stops cleanly on SIGTERM/SIGINT or a stop request.
import { join, resolve } from "node:path";
import { DEMO_NOTICE } from "../agent/demo.ts";
import { withdrawSecretsFromEnvironment } from "../platform/withdraw-secrets.ts";
import { looksLikeSecretVariable } from "../tools/shell-env.ts";
import type { SandboxOverrides } from "../sandbox/settings.ts";
import { runPermissions } from "./run-permission-flags.ts";
import { createSessionFromConfig, type SessionCatalogView } from "../agent/create-session.ts";
import { SessionSetupError } from "../agent/session-setup-error.ts";
import { loadConfig } from "../config/load.ts";
import type { UntrustedPolicy } from "../config/trust/assess.ts";
import { catalogFromConfig } from "../daemon/catalog-source.ts";
import { CREDENTIAL_ENV, CredentialError, loadCredential } from "../daemon/credential.ts";
import type { Daemon, EngineFactory } from "../daemon/daemon.ts";
import { startDaemon, type RunningDaemon } from "../daemon/serve.ts";
import { trimWhenIdle } from "../platform/idle-trim.ts";
import { DEFAULT_LOG_LEVEL, fileLogger } from "../daemon/log.ts";
import { assertWritableDir } from "../daemon/storage-fault.ts";
import { DEFAULT_IDLE_EXIT_SECS, exitWhenIdle } from "../daemon/idle-exit.ts";
import { DeferredTracer } from "../telemetry/start.ts";
import { crashReportDir } from "../platform/crash/store.ts";
import type { Tracer } from "../telemetry/tracer.ts";
import { BootstrapError, checkIn, takeBootstrapFromEnv, type BootstrapFile } from "../daemon/bootstrap.ts";
import { isLayoutRefusal, prepareSessionDir } from "../daemon/store/migrate/session-dir.ts";
import { CliError, EXIT, UsageError, type Io, type ParsedArgs } from "../util/cli-command.ts";

export interface DaemonProcessOptions {
  sessionDir: string;
  credentialFile: string;
  port: number;
  project?: string;
  engineFactory: EngineFactory;
  reload?: (daemon: Daemon) => void;
  /** The process's tracer: engine spans and route spans of this daemon. */
  tracer?: Tracer;
}

export async function daemonRun(args: ParsedArgs, given: Io): Promise<number> {
  // The daemon works from a copy of its environment; the credentials leave the process's own (children
  // started with the default environment, /proc/<pid>/environ), docs/security.md.
  const io = { ...given, env: { ...given.env } };
  withdrawSecretsFromEnvironment((name) => looksLikeSecretVariable(name));
  const sessionDir = args.flags["session-dir"] as string | undefined;
  if (!sessionDir) throw new UsageError("agent daemon needs --session-dir D");
  const credentialFile = (args.flags["credential-file"] as string | undefined) ?? io.env[CREDENTIAL_ENV];
  if (!credentialFile) throw new UsageError(`agent daemon needs --credential-file F (or ${CREDENTIAL_ENV})`);
  const port = parsePort(args.flags.port as string | undefined);
  const demo = args.flags.demo === true;
  const configFile = args.flags.config as string | undefined;
  const configPath = configFile === undefined ? undefined : resolve(io.cwd, configFile);
  const authDir = args.flags["auth-dir"] as string | undefined;
  const tracer = new DeferredTracer();
  const { sandbox, runRules } = runPermissions(args);
  const { engineFactory, reload } = configuredEngine(io.env, demo, { configFile: configPath, tracer, warn: (m) => io.err(`warning: ${m}\n`), authDir: authDir === undefined ? undefined : resolve(io.cwd, authDir), sandbox, runRules });
  return runDaemonProcess({ sessionDir: resolve(io.cwd, sessionDir), credentialFile: resolve(io.cwd, credentialFile), port, project: args.flags.project as string | undefined, engineFactory, reload, tracer }, io);
}

/**
 * The engine of a real session: built from the project's config, with a catalog that follows the live
 * session (tool server states) and a reload that re-reads the config.
 */
export interface EngineOptions {
  configFile?: string;
  /** `agent new --sandbox/--autonomy/--full-auto/--allow/--deny`: this daemon run only. */
  sandbox?: SandboxOverrides;
  runRules?: { allow: string[]; deny: string[] };
  tracer?: DeferredTracer;
  warn?: (message: string) => void;
  authDir?: string;
  /**
   * Untrusted project settings (src/config/trust): left out by default, as for every daemon the CLI or
   * the gateway starts; `keep` is for tests that configure the project layer freely.
   */
  untrusted?: UntrustedPolicy;
}

export function configuredEngine(env: Record<string, string | undefined>, demo: boolean, options: EngineOptions = {}): { engineFactory: EngineFactory; reload: (daemon: Daemon) => void } {
  const { configFile, tracer, warn, authDir, untrusted, sandbox, runRules } = options;
  let live: SessionCatalogView | undefined;
  const engineFactory: EngineFactory = async ({ sessionId, sessionDir: dir, projectRoot, initialEvents }) => {
    try {
      const created = await createSessionFromConfig({ cwd: projectRoot, env, sessionId, sessionDir: dir, interactive: true, initialEvents, demo, configFile, tracer, authDir, untrusted, trustHint: "and start the session again", sandbox, runRules });
      // Export starts from the config the engine just loaded (before the daemon listens, so routes are traced too).
      await tracer?.choose({ block: created.loaded.config.telemetry, env, secrets: created.loaded.secrets, warn });
      const secrets = [...created.loaded.secrets, ...(created.loaded.config.permissions?.secret_words ?? [])];
      live = created.live;
      return {
        engine: created.session,
        catalog: () => catalogFromConfig(created.loaded, created.model, live),
        // The offline demo is labelled where a person sees it: a notice at the top of the conversation.
        notices: demo ? [DEMO_NOTICE, ...created.notices] : created.notices,
        secrets,
        active: () => ({ facet: created.modes.facet.name, model: created.modes.modelRef(), sandbox: created.sandbox.description, autonomy: created.sandbox.autonomy }),
        idleExitSecs: created.loaded.config.daemon?.idle_exit_secs,
        logLevel: created.loaded.config.daemon?.log_level,
        // The daemon records from here on: extensions waiting for approval are asked now, and loading
        // one (like a tool server change) republishes the catalog.
        watchCatalog: (changed) => {
          created.live.mcp?.onChange(changed);
          created.extensions.onChange(changed);
          created.extensions.askApprovals();
          void created.sessionStart();
        },
      };
    } catch (error) {
      if (error instanceof SessionSetupError) throw new CliError(`cannot start the session: ${error.message}`);
      throw error;
    }
  };
  const reload = (daemon: Daemon) => {
    const loaded = loadConfig({ cwd: daemon.store.meta().project, env, configFile, untrusted });
    if (loaded.ok) daemon.catalog.publish(() => catalogFromConfig(loaded, null, live));
  };
  return { engineFactory, reload };
}

/** The daemon process around any engine factory (the CLI's real one, or a test's fake one). */
export async function runDaemonProcess(options: DaemonProcessOptions, io: Io): Promise<number> {
  let token: string;
  try {
    token = loadCredential(options.credentialFile);
  } catch (error) {
    if (error instanceof CredentialError) throw new CliError(`agent daemon: ${error.message}`);
    throw error;
  }
  let gateway: BootstrapFile | null;
  try {
    gateway = takeBootstrapFromEnv(io.env);
  } catch (error) {
    if (error instanceof BootstrapError) throw new CliError(`agent daemon: ${error.message}`);
    throw error;
  }
  // A read-only (or full) session dir could record nothing: said at once, not as a store error later.
  try {
    assertWritableDir(options.sessionDir);
  } catch (error) {
    throw new CliError(`agent daemon: ${(error as Error).message}`);
  }
  // Migrates an older layout before anything writes into the dir; a newer layout is refused here.
  try {
    prepareSessionDir(options.sessionDir);
  } catch (error) {
    if (isLayoutRefusal(error)) throw new CliError(`agent daemon: ${error.message}`);
    throw error;
  }
  const logFile = join(options.sessionDir, "daemon.log");
  // Info until the session's config is loaded (the engine reads it), then its daemon.log_level.
  const logger = fileLogger(logFile, () => [token]);
  let finish: (code: number) => void = () => {};
  const exited = new Promise<number>((r) => (finish = r));
  const running = await startDaemon({
    sessionDir: options.sessionDir,
    project: options.project ? resolve(options.project) : undefined,
    credential: token,
    port: options.port,
    engineFactory: options.engineFactory,
    logFile,
    logger,
    onExitRequested: () => void shutdown(),
    reloadCatalog: options.reload,
    tracer: options.tracer,
    crashReportDir: crashReportDir(io.env),
  });
  logger.level = running.daemon.logLevel ?? DEFAULT_LOG_LEVEL;
  logger.info(`daemon started: session ${running.daemon.store.id}, port ${running.ready.port}, pid ${process.pid}, epoch ${running.ready.epoch}, log level ${logger.level}`);
  let stopping = false;
  const idle = trimWhenIdle();
  const idleExit = exitWhenIdle(running.daemon, {
    idleExitSecs: running.daemon.idleExitSecs ?? DEFAULT_IDLE_EXIT_SECS,
    exit: () => void shutdown(),
    log: (message) => logger.info(message),
  });
  async function shutdown(): Promise<void> {
    if (stopping) return;
    stopping = true;
    idle.stop();
    idleExit.stop();
    await running.stop();
    logger.info("daemon stopped");
    await options.tracer?.shutdown();
    finish(EXIT.ok);
  }
  process.on("SIGTERM", () => void shutdown());
  process.on("SIGINT", () => void shutdown());
  if (options.reload) process.on("SIGHUP", () => options.reload!(running.daemon));
  // Startup is over: from here hot code (streams, replays) compiles as usual (see daemon-commands.ts).
  Bun.unsafe.setJITPolicy(1);
  io.out(`${JSON.stringify(running.ready)}\n`);
  // Startup is over: what it left behind on the heap is garbage and the code it ran is cold, so both are
  // given back now, and again whenever the daemon falls quiet after work (idle-trim.ts).
  void idle.releaseNow();
  if (gateway) void checkIn(gateway).catch((error) => logger.error(`gateway check-in failed: ${(error as Error).message}`));
  return exited;
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return 0;
  if (!/^[0-9]{1,5}$/.test(value) || Number(value) > 65535) throw new UsageError(`--port must be a port number from 0 to 65535 (got '${value}')`);
  return Number(value);
}
