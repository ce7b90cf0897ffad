// One session daemon's state: the store, epoch and token signer, record hub, cursors, operation windows,
// the hosted engine, and the catalog/history/feedback publications. Routes (app.ts) call into this.
import type { EngineEvent } from "../agent/events.ts";
import type { EngineSession } from "../agent/session-api.ts";
import { DAEMON_FEATURES } from "../protocol/features.ts";
import type { ActiveMode, SyncStatus, SyncSnapshotBody } from "../protocol/sync-shapes.ts";
import { TokenSigner } from "../protocol/tokens.ts";
import { newId } from "../util/ids.ts";
import { CatalogPublisher, type CatalogSource } from "./catalog.ts";
import { Cursors } from "./cursors.ts";
import { EngineHost } from "./engine-host.ts";
import { FeedbackArtifacts } from "./feedback.ts";
import { HistoryService } from "./history.ts";
import { RecordHub } from "./hub.ts";
import { DAEMON_LIMITS, type DaemonLimits } from "./limits.ts";
import { Operations } from "./operations.ts";
import type { DaemonLogger } from "./edge.ts";
import { StorageGuard } from "./storage-fault.ts";
import type { LogLevel } from "./log.ts";
import { closingRecords, RESTART_ERROR } from "./recovery.ts";
import { initSessionDir, openSession, parseRecord, STORE_FILE, titleFrom, type SessionStore, type StoredRecord } from "./store/index.ts";
import { withPlan } from "../protocol/plan.ts";
import { existsSync } from "node:fs";
import { join } from "node:path";

export interface EngineFactoryArgs {
  sessionId: string;
  sessionDir: string;
  projectRoot: string;
  initialEvents: EngineEvent[];
}

/** What the daemon hosts: an engine for the session, plus what the catalog publishes about it. */
export interface HostedEngine {
  engine: EngineSession;
  catalog?: CatalogSource;
  notices?: string[];
  /** Secret values (config substitutions, secret words) scrubbed from history and feedback at capture. */
  secrets?: string[];
  /**
   * Calls `changed` whenever what the catalog describes may have changed (a tool server connected or
   * failed); the daemon republishes, and only a real content change makes a new revision.
   */
  watchCatalog?: (changed: () => void) => void;
  /** The facet and model in effect now, for the snapshot (a new session has no turn_started to tell). */
  active?: () => ActiveMode;
  /** `daemon.idle_exit_secs` of the session's config (idle-exit.ts); absent: the built-in default. */
  idleExitSecs?: number;
  /** `daemon.log_level` of the session's config (log.ts); absent: info. */
  logLevel?: LogLevel;
}

export type EngineFactory = (args: EngineFactoryArgs) => Promise<HostedEngine>;

export interface DaemonClock {
  now(): number;
}

export interface DaemonConfig {
  sessionDir: string;
  /** The project a new session dir is created for (default: the working directory). */
  project?: string;
  clock?: DaemonClock;
  limits?: Partial<DaemonLimits>;
  engineFactory?: EngineFactory;
  /** Files offered as feedback artifacts besides the journal (the daemon log). */
  logFile?: string;
  /** The crash report directory (src/platform/crash), offered as feedback artifacts. */
  crashReportDir?: string;
  /** Where storage faults and recoveries are told (daemon.log). */
  logger?: DaemonLogger;
}

export class Daemon {
  readonly epoch: string;
  readonly limits: DaemonLimits;
  readonly signer: TokenSigner;
  readonly hub: RecordHub;
  readonly cursors: Cursors;
  readonly ops: Operations;
  readonly host: EngineHost;
  readonly catalog: CatalogPublisher;
  readonly history: HistoryService;
  readonly feedback: FeedbackArtifacts;
  /** Storage faults (a full disk): the daemon stays up, ends the turn, refuses commands until writes succeed. */
  readonly storage: StorageGuard;
  readonly now: () => number;
  private stopping: Promise<void> | null = null;
  private secrets: string[] = [];
  private active: (() => ActiveMode) | null = null;
  /** When a client last did something (a request other than a probe); idle-exit.ts reads it. */
  private lastActivity: number;
  /** The config's idle exit setting (seconds; 0 = never), when the engine's config names one. */
  idleExitSecs: number | undefined;
  /** The config's log level, when the engine's config names one. */
  logLevel: LogLevel | undefined;

  private constructor(
    readonly store: SessionStore,
    readonly config: DaemonConfig,
  ) {
    const clock = config.clock ?? { now: Date.now };
    this.now = () => clock.now();
    this.limits = { ...DAEMON_LIMITS, ...config.limits };
    this.epoch = newId("ep", this.now());
    this.signer = new TokenSigner(store.tokenKey(), store.id, this.epoch);
    this.hub = new RecordHub(store.journal, this.now, this.limits.heartbeatMs);
    this.cursors = new Cursors(this.signer, () => Math.max(store.journal.firstSeq() - 1, this.hub.lastSeq - this.limits.replayRecords, 0), () => this.hub.lastSeq);
    this.ops = new Operations(store, this.signer, this.now, this.limits.operationWindowMs, (result) => this.hub.publish({ type: "operation_result", result }));
    this.host = new EngineHost(this.hub, this.ops, this.cursors);
    this.catalog = new CatalogPublisher((revision) => this.hub.publish({ type: "daemon_catalog_changed", catalog_revision: revision }));
    this.history = new HistoryService(store, this.signer, this.now, this.limits, () => this.secrets);
    this.feedback = new FeedbackArtifacts(store, this.signer, this.limits, config.logFile, () => this.secrets, config.crashReportDir);
    this.lastActivity = this.now();
    this.storage = new StorageGuard(store.dir, {
      commit: () => {
        this.hub.flush();
        return this.hub.queued === 0;
      },
      onFault: (fault, error) => {
        config.logger?.error(`storage fault (${(error as { code?: string }).code}): ${fault.message}`);
        this.host.failTurn(fault);
      },
      onRecovered: (fault) => config.logger?.info?.(`storage recovered after ${fault.code}: records are committed again`),
    });
    this.hub.onWriteError = (error) => this.storage.failed(error);
  }

  /** Opens (or creates) the session in the dir, closes what a crash left open, and starts the engine. */
  static async open(config: DaemonConfig): Promise<Daemon> {
    const clock = config.clock ?? { now: Date.now };
    const limits = { ...DAEMON_LIMITS, ...config.limits };
    const storeOptions = { now: () => clock.now(), ledgerLimits: { maxEntries: limits.ledgerEntries, maxBytes: limits.ledgerBytes } };
    const store = existsSync(join(config.sessionDir, STORE_FILE))
      ? openSession(config.sessionDir, storeOptions)
      : initSessionDir(config.sessionDir, newId("ses", clock.now()), { project: config.project ?? process.cwd(), ...storeOptions });
    const daemon = new Daemon(store, { ...config });
    daemon.storage.ensureReserve();
    try {
      await daemon.start();
    } catch (error) {
      daemon.hub.close();
      store.close();
      throw error;
    }
    return daemon;
  }

  private async start(): Promise<void> {
    const events = this.store.events();
    const closing = closingRecords(events, this.now());
    if (closing.length > 0) this.store.appendEvents(closing);
    // Results the crashed daemon left admitted or in progress: their turn was closed above (interrupted).
    this.ops.settleOpen(RESTART_ERROR.code, RESTART_ERROR.message);
    if (this.store.meta().state === "stopping") this.store.setState("stopped", true);
    let journaledState: string | undefined;
    this.host.replay(
      (function* (records: Iterable<StoredRecord>) {
        for (const r of records) {
          if (r.type === "session_state") journaledState = (parseRecord(r) as unknown as { state: string }).state;
          yield r;
        }
      })(this.store.journal.all()),
    );
    // A stopped session that was continued (locally or by the gateway) says so in its journal, so a
    // client replaying the records does not end on the old "stopped".
    if (this.store.meta().state === "running" && journaledState !== undefined && journaledState !== "running") {
      this.hub.publish({ type: "session_state", state: "running", finalized: false });
    }
    this.hub.flush();
    if (this.store.meta().state !== "running" || !this.config.engineFactory) return;
    const hosted = await this.config.engineFactory({
      sessionId: this.store.id,
      sessionDir: this.store.dir,
      projectRoot: this.store.meta().project,
      initialEvents: closing.length > 0 ? this.store.events() : events,
    });
    this.secrets = (hosted.secrets ?? []).filter((v) => v.length >= 4);
    this.idleExitSecs = hosted.idleExitSecs;
    this.logLevel = hosted.logLevel;
    this.host.attach(hosted.engine);
    this.active = hosted.active ?? null;
    if (hosted.catalog) this.catalog.publish(hosted.catalog);
    hosted.watchCatalog?.(() => {
      this.catalog.publish();
      this.hub.flush();
    });
    for (const message of hosted.notices ?? []) this.hub.publish({ type: "notice", level: "warning", message });
    this.hub.flush();
  }

  get sessionState() {
    return this.store.meta().state;
  }

  /**
   * Whether this daemon serves the session: its engine runs and no stop has begun. A daemon that was
   * stopped (and stays up to serve the history) is not, even once its store says running again because
   * `agent continue` marked it so: the launcher then replaces it (client/daemon-launch.ts).
   */
  get serving(): boolean {
    return this.host.attached && this.stopping === null;
  }

  /** A session without a title is named after its first prompt (titleFrom). */
  nameAfter(prompt: string): void {
    if (this.store.meta().title !== null) return;
    const title = titleFrom(prompt);
    if (title) this.store.setTitle(title);
  }

  /** A client did something (probes excluded: the gateway's observer polls every 5 s). */
  touch(): void {
    this.lastActivity = this.now();
  }

  /**
   * Milliseconds this daemon has had nothing to do: no stream attached, no turn, nothing queued, no open
   * question, no request; 0 while any of these holds (each check restarts the count).
   */
  idleFor(): number {
    const now = this.now();
    if (this.hub.subscriberCount > 0 || this.host.busy || this.host.queue.length > 0 || this.host.pending.size > 0) this.lastActivity = now;
    return now - this.lastActivity;
  }

  snapshot(): SyncSnapshotBody {
    this.hub.flush();
    const meta = this.store.meta();
    const running = meta.state === "running" && this.host.attached;
    const stoppedHistory = meta.state === "stopped" && meta.finalized;
    return {
      version: 1,
      session_id: this.store.id,
      daemon_epoch: this.epoch,
      cursor: this.cursors.encode(this.hub.lastSeq),
      origin_cursor: this.cursors.origin(),
      seq: String(this.hub.lastSeq),
      catalog_revision: this.catalog.revision,
      features: [...DAEMON_FEATURES],
      session_state: meta.state,
      turn: { busy: this.host.busy, turn_id: this.host.turnId, queue: [...this.host.queue], pending_interrogatives: [...this.host.pending.values()] },
      active: this.host.attached && this.active ? this.active() : null,
      actions: {
        prompt: running,
        dequeue: running && this.host.queue.length > 0,
        interrogative_response: running && this.host.pending.size > 0,
        interrupt: running && this.host.busy,
        history: stoppedHistory,
      },
      history_checkpoint: this.history.latestToken(),
      operation_window: running ? this.ops.currentWindow() : null,
    };
  }

  summary(): SyncStatus {
    this.hub.flush();
    return {
      version: 1,
      daemon_epoch: this.epoch,
      cursor: this.cursors.encode(this.hub.lastSeq),
      busy: this.host.busy,
      attention: this.host.pending.size > 0,
      history_checkpoint: this.history.latestToken() ?? "",
      history_total_items: this.history.latestTotal(),
      ...withPlan(this.host.plan),
    };
  }

  /**
   * Stops the session: the engine closes (its turn is interrupted), then the session is finalized.
   * `reason: "idle"` marks the stop of an idle exit in the final record, so a supervisor (the gateway)
   * can tell it from a stop someone asked for.
   */
  stop(reason?: "idle"): Promise<void> {
    this.stopping ??= (async () => {
      if (this.store.meta().state === "stopped") return;
      this.store.setState("stopping");
      this.hub.publish({ type: "session_state", state: "stopping", finalized: false });
      this.hub.flush();
      await this.host.close();
      // Prompts the closed engine never ran (queued, or admitted as it closed) do not stay open forever.
      this.ops.settleOpen("session_stopped", "the session was stopped before this prompt ran to its end");
      this.hub.publish({ type: "session_state", state: "stopped", finalized: true, ...(reason ? { reason } : {}) });
      this.hub.flush();
      this.store.setState("stopped", true);
    })();
    return this.stopping;
  }

  /** Releases everything (the session keeps its state: a running session resumes on the next start). */
  async close(): Promise<void> {
    await this.host.close();
    this.hub.close();
    this.storage.close();
    this.store.close();
  }
}
