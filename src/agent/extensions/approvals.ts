// Recorded extension decisions: `<data root>/extensions/approvals.json` (0600, directory 0700). A decision
// holds for one extension name, version and content digest; a new version or changed files ask again.
// Rejections are recorded too, so a session does not ask again what the user already refused.
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import { PrivateJsonFileError, readPrivateJson, writePrivateJson } from "../../util/private-json-file.ts";

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
    writePrivateJson(this.file, { version: APPROVALS_FILE_VERSION, decisions: decisions.filter((d) => !dropped.has(d)) });
  }

  private read(): ExtensionDecision[] {
    try {
      return readPrivateJson(this.file, FileSchema, APPROVALS_FILE_VERSION, "an approvals file (version 1 with a decisions list)", "every extension will then ask again")?.decisions ?? [];
    } catch (error) {
      if (error instanceof PrivateJsonFileError) throw new ApprovalStoreError(error.message);
      throw error;
    }
  }
}
