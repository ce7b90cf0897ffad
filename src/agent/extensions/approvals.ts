// Recorded extension decisions: `<data root>/extensions/approvals.json` (0600, directory 0700). A decision
// holds for one extension name, version and content digest; a new version or changed files ask again.
// Rejections are recorded too, so a session does not ask again what the user already refused.
import { chmodSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { writeFileAtomic } from "../../util/atomic-write.ts";

export const APPROVALS_FILE_VERSION = 1;

const DecisionSchema = Type.Object({
  name: Type.String(),
  version: Type.String(),
  digest: Type.String(),
  decision: Type.Union([Type.Literal("approved"), Type.Literal("rejected")]),
  /** Where the extension was when decided (for a person reading the file). */
  path: Type.String(),
  decided_at: Type.String(),
});

const FileSchema = Type.Object({ version: Type.Literal(APPROVALS_FILE_VERSION), decisions: Type.Array(DecisionSchema) });

export type ExtensionDecision = typeof DecisionSchema.static;

/** Older decisions of a name beyond this are dropped when a new one is written. */
const KEPT_PER_NAME = 20;

export class ApprovalStoreError extends Error {}

export function approvalsFile(dataRoot: string): string {
  return join(dataRoot, "extensions", "approvals.json");
}

export class ApprovalStore {
  constructor(
    readonly file: string,
    private readonly now: () => number,
  ) {}

  /** The recorded decision for exactly this name, version and digest, if any. */
  find(name: string, version: string, digest: string): ExtensionDecision | undefined {
    return this.read().findLast((d) => d.name === name && d.version === version && d.digest === digest);
  }

  /** The newest decision of a name (to tell the user what changed since). */
  latest(name: string): ExtensionDecision | undefined {
    return this.read().findLast((d) => d.name === name);
  }

  record(entry: Omit<ExtensionDecision, "decided_at">): void {
    const decisions = this.read().filter((d) => !(d.name === entry.name && d.version === entry.version && d.digest === entry.digest));
    decisions.push({ ...entry, decided_at: new Date(this.now()).toISOString() });
    const ofName = decisions.filter((d) => d.name === entry.name);
    const dropped = new Set(ofName.slice(0, Math.max(0, ofName.length - KEPT_PER_NAME)));
    const dir = join(this.file, "..");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    writeFileAtomic(this.file, `${JSON.stringify({ version: APPROVALS_FILE_VERSION, decisions: decisions.filter((d) => !dropped.has(d)) }, null, 2)}\n`, 0o600);
  }

  private read(): ExtensionDecision[] {
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw new ApprovalStoreError(`${this.file}: cannot be read (${(error as Error).message})`);
    }
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      throw new ApprovalStoreError(`${this.file}: not valid JSON; fix or delete it (every extension will then ask again)`);
    }
    const version = (doc as { version?: unknown } | null)?.version;
    if (typeof version === "number" && version > APPROVALS_FILE_VERSION) {
      throw new ApprovalStoreError(`${this.file} was written by a newer agent (version ${version}); update agent`);
    }
    if (!Value.Check(FileSchema, doc)) throw new ApprovalStoreError(`${this.file}: not an approvals file (version 1 with a decisions list); fix or delete it`);
    return doc.decisions;
  }
}
