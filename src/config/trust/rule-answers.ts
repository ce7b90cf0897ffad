// The allow rules the user added to a project's `.agent/permissions.yaml` by answering "allow always in
// this project": `<data root>/trust/rule-answers.json` (0600, directory 0700), one list per project
// directory. The project's rule file is also where a cloned repository writes its own allow rules, so the
// file alone cannot tell them apart: a rule listed here is the user's consent and needs no project trust;
// every other allow rule of the file waits for `agent trust`. It lives under the data root, never in the
// project, so a repository cannot forge it.
import { join, resolve } from "node:path";
import { Type } from "@sinclair/typebox";
import { PrivateJsonFileError, readPrivateJson, writePrivateJson } from "../../util/private-json-file.ts";
import { projectKey, ProjectTrustStoreError } from "./store.ts";

export const RULE_ANSWERS_FILE_VERSION = 1;

const EntrySchema = Type.Object({
  project: Type.String(),
  /** The rules as written into the file (what the dialog showed). */
  rules: Type.Array(Type.String()),
  updated_at: Type.String(),
});

const FileSchema = Type.Object({ version: Type.Literal(RULE_ANSWERS_FILE_VERSION), projects: Type.Array(EntrySchema) });

export function ruleAnswersFile(dataRoot: string): string {
  return join(dataRoot, "trust", "rule-answers.json");
}

export class RuleAnswerStore {
  constructor(
    readonly file: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The rules the user added to this project's rule file; throws ProjectTrustStoreError for a damaged file. */
  rules(project: string): string[] {
    const key = projectKey(project);
    return this.read().find((e) => e.project === key)?.rules ?? [];
  }

  /** Records rules the user allowed for the project (re-read just before the write, so other sessions' answers stay). */
  add(project: string, rules: readonly string[]): void {
    if (rules.length === 0) return;
    const key = projectKey(project);
    const all = this.read();
    const known = all.find((e) => e.project === key)?.rules ?? [];
    const merged = [...new Set([...known, ...rules])];
    if (merged.length === known.length) return;
    const rest = all.filter((e) => e.project !== key);
    writePrivateJson(this.file, { version: RULE_ANSWERS_FILE_VERSION, projects: [...rest, { project: key, rules: merged, updated_at: new Date(this.now()).toISOString() }] });
  }

  /** Forgets a project's answers (with `agent trust --revoke`); false when there were none. */
  forget(project: string): boolean {
    const key = projectKey(project);
    const all = this.read();
    const rest = all.filter((e) => e.project !== key && e.project !== resolve(project));
    if (rest.length === all.length) return false;
    writePrivateJson(this.file, { version: RULE_ANSWERS_FILE_VERSION, projects: rest });
    return true;
  }

  private read(): { project: string; rules: string[]; updated_at: string }[] {
    try {
      return readPrivateJson(this.file, FileSchema, RULE_ANSWERS_FILE_VERSION, "a rule answers file (version 1 with a projects list)", "allow rules you added by answering 'allow always in this project' will then need 'agent trust'")?.projects ?? [];
    } catch (error) {
      if (error instanceof PrivateJsonFileError) throw new ProjectTrustStoreError(error.message);
      throw error;
    }
  }
}
