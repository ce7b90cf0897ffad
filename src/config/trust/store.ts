// Projects the user trusted: `<data root>/trust/projects.json` (0600, directory 0700). One record per
// project directory, holding the digest of the trust-relevant settings it was granted for; a different
// digest is "changed" and asks again (as direnv's allow). "Not now" is not recorded: it asks next time.
import { realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { Type } from "@sinclair/typebox";
import { PrivateJsonFileError, readPrivateJson, writePrivateJson } from "../../util/private-json-file.ts";

export const PROJECT_TRUST_FILE_VERSION = 1;

const RecordSchema = Type.Object({
  project: Type.String(),
  digest: Type.String(),
  /** The project's config file when trusted (for a person reading the file or `agent trust --list`). */
  file: Type.String(),
  /** What was shown when trusted, one line each. */
  items: Type.Array(Type.String()),
  trusted_at: Type.String(),
});

const FileSchema = Type.Object({ version: Type.Literal(PROJECT_TRUST_FILE_VERSION), projects: Type.Array(RecordSchema) });

export type ProjectTrustRecord = typeof RecordSchema.static;

export class ProjectTrustStoreError extends Error {}

export function projectTrustFile(dataRoot: string): string {
  return join(dataRoot, "trust", "projects.json");
}

/** The key of a project: its real path, so a symlinked checkout and the directory itself are one project. */
export function projectKey(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}

export class ProjectTrustStore {
  constructor(
    readonly file: string,
    private readonly now: () => number = Date.now,
  ) {}

  find(project: string): ProjectTrustRecord | undefined {
    const key = projectKey(project);
    return this.read().find((r) => r.project === key);
  }

  list(): ProjectTrustRecord[] {
    return this.read();
  }

  trust(entry: Omit<ProjectTrustRecord, "trusted_at" | "project"> & { project: string }): ProjectTrustRecord {
    const record = { ...entry, project: projectKey(entry.project), trusted_at: new Date(this.now()).toISOString() };
    const rest = this.read().filter((r) => r.project !== record.project);
    writePrivateJson(this.file, { version: PROJECT_TRUST_FILE_VERSION, projects: [...rest, record] });
    return record;
  }

  /** Forgets a project; false when it was not trusted. */
  revoke(project: string): boolean {
    const key = projectKey(project);
    const all = this.read();
    const rest = all.filter((r) => r.project !== key && r.project !== resolve(project));
    if (rest.length === all.length) return false;
    writePrivateJson(this.file, { version: PROJECT_TRUST_FILE_VERSION, projects: rest });
    return true;
  }

  private read(): ProjectTrustRecord[] {
    try {
      return readPrivateJson(this.file, FileSchema, PROJECT_TRUST_FILE_VERSION, "a project trust file (version 1 with a projects list)", "every project will then ask again")?.projects ?? [];
    } catch (error) {
      if (error instanceof PrivateJsonFileError) throw new ProjectTrustStoreError(error.message);
      throw error;
    }
  }
}
