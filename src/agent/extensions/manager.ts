// A session's extensions: found at start, checked, and loaded only once the person approved that name,
// version and content digest. Approved ones load before the first turn; others are asked about once a
// host listens (an `extension_approval` interrogative) and load when approved, telling `onChange`
// listeners (the daemon republishes its catalog). Headless runs never ask and never load an unapproved
// extension. Every failure is a notice plus a session log line, and the extension is skipped.
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import type { Interrogative, InterrogativeAnswer } from "../events.ts";
import { SESSION_LOG_FILE } from "../session-log.ts";
import type { Tool } from "../../tools/tool.ts";
import { ApprovalStore, ApprovalStoreError } from "./approvals.ts";
import { DigestError, extensionDigest } from "./digest.ts";
import { discoverExtensions, type ExtensionOrigin, type ExtensionRoot } from "./discover.ts";
import { extensionApi, loadExtension, type LoadedParts } from "./load.ts";
import { ManifestError, readManifest, type ReadManifest } from "./manifest.ts";
import type { ExtensionReminderState } from "./types.ts";

export type ExtensionApprovalQuestion = Omit<Extract<Interrogative, { kind: "extension_approval" }>, "id">;

/** The session as the manager needs it: asking the person, telling them things. */
export interface ExtensionHost {
  /** Null when nobody can answer (headless). Rejects when the question is withdrawn. */
  approveExtension(question: ExtensionApprovalQuestion, signal: AbortSignal): Promise<InterrogativeAnswer | null>;
  notice(level: "info" | "warning", message: string): void;
}

export type ExtensionState = "loaded" | "awaiting_approval" | "rejected" | "not_approved" | "failed";

export interface ExtensionStatus {
  name: string;
  origin: ExtensionOrigin;
  dir: string;
  state: ExtensionState;
  version?: string;
  description?: string;
  capabilities?: string[];
  /** Why it is not loaded (failures, refusals). */
  reason?: string;
  tools: string[];
  system_reminders: string[];
}

interface Entry {
  name: string;
  origin: ExtensionOrigin;
  dir: string;
  state: ExtensionState;
  reason?: string;
  read?: ReadManifest;
  digest?: string;
  parts?: LoadedParts;
}

export interface ExtensionManagerOptions {
  roots: readonly ExtensionRoot[];
  /** `plugins` from the config: each extension gets its own entry. */
  plugins: Record<string, unknown>;
  store: ApprovalStore;
  projectRoot: string;
  interactive: boolean;
  sessionDir?: string | null;
  now: () => number;
  scrub: (text: string) => string;
}

export class ExtensionManager {
  private entries: Entry[] = [];
  private host: ExtensionHost | null = null;
  private readonly listeners: (() => void)[] = [];
  private readonly closing = new AbortController();

  constructor(private readonly options: ExtensionManagerOptions) {}

  /** Finds and checks every extension and loads the approved ones; what went wrong goes into `warnings`. */
  async start(warnings: string[]): Promise<void> {
    const notes: string[] = [];
    const found = discoverExtensions(this.options.roots, notes);
    warnings.push(...notes);
    this.entries = found.map((c) => ({ name: c.name, origin: c.origin, dir: c.dir, state: "failed" as ExtensionState }));
    const named = new Set(found.map((c) => c.name));
    for (const key of Object.keys(this.options.plugins)) {
      if (!named.has(key)) warnings.push(`plugins.${key}: no extension named ${key} was found (looked in ${this.options.roots.map((r) => r.dir).join(" and ")})`);
    }
    for (const entry of this.entries) {
      const problem = await this.prepare(entry);
      if (problem) {
        warnings.push(problem);
        this.log(entry.name, "warning", problem);
      }
    }
  }

  /** Binds the session: later failures and loads are told to it as notices. */
  bind(host: ExtensionHost): void {
    this.host = host;
  }

  /** Calls `listener` whenever the loaded set changes (an approval loaded an extension). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Asks about every extension that waits for approval; call once a host records the questions. */
  askApprovals(): void {
    for (const entry of this.entries) {
      if (entry.state !== "awaiting_approval") continue;
      // Nothing an approval does may reject unhandled: that would take the daemon down.
      this.ask(entry).catch((error) => this.report(entry, "warning", this.fail(entry, `extension ${entry.name} was not loaded: ${(error as Error)?.message ?? String(error)}`)));
    }
  }

  /** Records an approval given with `/extensions approve` and loads the extension now. */
  async approve(name: string): Promise<ExtensionStatus> {
    const entry = this.entries.find((e) => e.name === name)!;
    await this.decide(entry, "approved");
    return this.status(entry);
  }

  list(): ExtensionStatus[] {
    return this.entries.map((e) => this.status(e));
  }

  /** The tools of loaded extensions (already named `ext__<extension>__<tool>`). */
  tools(): Tool[] {
    return this.entries.flatMap((e) => (e.state === "loaded" ? (e.parts?.tools ?? []) : []));
  }

  /** The reminder texts for the coming model call, wrapped like the built-in ones. */
  reminderTexts(state: ExtensionReminderState): string[] {
    const out: string[] = [];
    for (const e of this.entries) {
      if (e.state !== "loaded") continue;
      for (const r of e.parts?.reminders ?? []) {
        const text = r.text(state);
        if (text !== null) out.push(`<system-reminder name="${r.name}">\n${text}\n</system-reminder>`);
      }
    }
    return out;
  }

  /** What the daemon catalog publishes: loaded extensions only, with their approved metadata. */
  catalog(): Record<string, unknown>[] {
    return this.list()
      .filter((s) => s.state === "loaded")
      .map((s) => ({ name: s.name, version: s.version, description: s.description, origin: s.origin, capabilities: s.capabilities, tools: s.tools, system_reminders: s.system_reminders }));
  }

  /** Withdraws open approval questions (the session is closing). */
  close(): void {
    this.closing.abort(new Error("the session is closing"));
  }

  private status(e: Entry): ExtensionStatus {
    const m = e.read?.manifest;
    return {
      name: e.name,
      origin: e.origin,
      dir: e.dir,
      state: e.state,
      ...(m ? { version: m.version, description: m.description, capabilities: [...m.capabilities] } : {}),
      ...(e.reason ? { reason: e.reason } : {}),
      tools: e.state === "loaded" ? (e.parts?.tools.map((t) => t.name) ?? []) : [],
      system_reminders: e.state === "loaded" ? (e.parts?.reminders.map((r) => r.name) ?? []) : [],
    };
  }

  /** Reads the manifest and digest, then loads, waits or refuses by the recorded decision; returns a problem to report. */
  private async prepare(entry: Entry): Promise<string | null> {
    try {
      entry.read = readManifest(entry.dir);
      entry.digest = extensionDigest(entry.read.dir);
    } catch (error) {
      if (error instanceof ManifestError || error instanceof DigestError) return this.fail(entry, error.message);
      return this.fail(entry, `${entry.dir}: cannot be read (${(error as Error).message})`);
    }
    const { name, version } = entry.read.manifest;
    let decision;
    try {
      decision = this.options.store.find(name, version, entry.digest);
    } catch (error) {
      if (error instanceof ApprovalStoreError) return this.fail(entry, `extension ${name} is not loaded: ${error.message}`);
      throw error;
    }
    if (decision?.decision === "approved") {
      const problem = await this.load(entry);
      return problem ? `extension ${name} ${version} failed to load and was skipped: ${problem}` : null;
    }
    if (decision?.decision === "rejected") {
      entry.state = "rejected";
      entry.reason = `you rejected version ${version} on ${decision.decided_at.slice(0, 10)}`;
      return `extension ${name} ${version} is not loaded: ${entry.reason} (/extensions approve ${name} loads it)`;
    }
    if (!this.options.interactive) {
      entry.state = "not_approved";
      entry.reason = "not approved yet, and nobody can approve it in a headless run";
      return `extension ${name} ${version} (${entry.dir}) is not approved, so it was not loaded; start an interactive session (agent new) in this project to approve it`;
    }
    entry.state = "awaiting_approval";
    return null;
  }

  private fail(entry: Entry, reason: string): string {
    entry.state = "failed";
    entry.reason = reason;
    return reason.startsWith("extension ") ? reason : `extension ${entry.name} was skipped: ${reason}`;
  }

  private async ask(entry: Entry): Promise<void> {
    const read = entry.read!;
    const m = read.manifest;
    const earlier = this.options.store.latest(m.name);
    const reason = !earlier
      ? "This extension has not been approved before. Approving runs its code in this and later sessions."
      : earlier.version !== m.version
        ? `This is a new version (you decided on ${earlier.version} before). Approving runs its code in this and later sessions.`
        : "Its files changed since you decided on this version. Approving runs its code in this and later sessions.";
    let answer: InterrogativeAnswer | null;
    try {
      answer = await this.host!.approveExtension(
        { kind: "extension_approval", name: m.name, version: m.version, description: m.description, origin: entry.origin, path: read.dir, capabilities: [...m.capabilities], reason },
        this.closing.signal,
      );
    } catch {
      return; // Withdrawn: the session is closing; the next session asks again.
    }
    if (answer === null) return;
    await this.decide(entry, answer.decision === "approve" ? "approved" : "rejected");
  }

  private async decide(entry: Entry, decision: "approved" | "rejected"): Promise<void> {
    const read = entry.read!;
    const { name, version } = read.manifest;
    // What loads must be what the person was shown: changed files wait for a new question.
    let digest: string;
    try {
      digest = extensionDigest(read.dir);
    } catch (error) {
      return this.report(entry, "warning", this.fail(entry, (error as Error).message));
    }
    if (digest !== entry.digest) {
      return this.report(entry, "warning", this.fail(entry, `extension ${name}: its files changed while waiting for approval; not loaded (the next session asks again)`));
    }
    try {
      this.options.store.record({ name, version, digest, decision, path: read.dir });
    } catch (error) {
      return this.report(entry, "warning", this.fail(entry, `extension ${name}: the decision could not be recorded (${(error as Error).message}); not loaded`));
    }
    if (decision === "rejected") {
      entry.state = "rejected";
      entry.reason = "you rejected it";
      return this.report(entry, "info", `extension ${name} ${version} rejected; it will not be loaded (/extensions approve ${name} changes that)`);
    }
    const problem = await this.load(entry);
    if (problem) return this.report(entry, "warning", `extension ${name} ${version} failed to load and was skipped: ${problem}`);
    const parts = entry.parts!;
    this.report(entry, "info", `extension ${name} ${version} loaded (${parts.tools.length} tool${parts.tools.length === 1 ? "" : "s"}, ${parts.reminders.length} reminder${parts.reminders.length === 1 ? "" : "s"})`);
    for (const listener of this.listeners) listener();
  }

  /** Runs the extension's code (approved only); returns the problem when it fails. */
  private async load(entry: Entry): Promise<string | null> {
    const read = entry.read!;
    const log = (message: string) => this.log(entry.name, "info", message);
    try {
      entry.parts = await loadExtension(read, {
        config: this.options.plugins[read.manifest.name],
        api: extensionApi(read, this.options.projectRoot, log),
        report: (message) => this.report(entry, "warning", message),
      });
    } catch (error) {
      entry.parts = undefined;
      this.fail(entry, (error as Error).message);
      return entry.reason!;
    }
    entry.state = "loaded";
    entry.reason = undefined;
    return null;
  }

  private report(entry: Entry, level: "info" | "warning", message: string): void {
    this.log(entry.name, level, message);
    this.host?.notice(level, this.options.scrub(message));
  }

  private log(name: string, level: string, message: string): void {
    if (!this.options.sessionDir) return;
    try {
      appendFileSync(join(this.options.sessionDir, SESSION_LOG_FILE), `${new Date(this.options.now()).toISOString()} ${level} ext:${name}: ${this.options.scrub(message).replaceAll("\n", " ")}\n`, { mode: 0o600 });
    } catch {
      // A log line is never worth failing the session for.
    }
  }
}
