// Decides, while the config loads, whether the project's trust-relevant settings may be used: trusted
// (the stored digest matches), untrusted or changed (they are left out before anything can start them),
// or kept for this run (`--trust-project`, and the config commands, which start nothing).
import { readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import type { LayerName } from "../merge.ts";
import { trustDigest } from "./digest.ts";
import { type TrustInput, type TrustItem, trustItems } from "./items.ts";
import { ProjectTrustStore, ProjectTrustStoreError } from "./store.ts";
import type { RuleAnswerStore } from "./rule-answers.ts";

/**
 * none: nothing needs trust. trusted: the user trusted exactly these settings. untrusted: never trusted.
 * changed: trusted once, but the settings (or their files) changed since.
 */
export type TrustState = "none" | "trusted" | "untrusted" | "changed";

export interface ProjectTrust {
  state: TrustState;
  /** The project directory (what `agent trust` takes). */
  root: string;
  /** The file a person reviews: the project config, else the project directory. */
  file: string;
  items: TrustItem[];
  digest: string;
  /** Whether the items are in the loaded config (trusted, or kept for this run). */
  active: boolean;
  /** A damaged trust file: the project is treated as untrusted and this says why. */
  storeError?: string;
  /**
   * The allow rules (as written) of the project's `.agent/permissions.yaml` the permission gate may use:
   * those the user added by answering "allow always in this project", and the others only while active.
   * Any other allow rule of that file is left out.
   */
  projectAllowRules: string[];
  /** Where the user's "allow always in this project" answers are recorded (src/config/trust/rule-answers.ts). */
  ruleAnswersFile: string;
  /** A damaged answers file: every allow rule of the project's rule file then waits for trust; this says why. */
  answersError?: string;
}

/** `strip` (the default) leaves untrusted settings out; `keep` loads them anyway for this run. */
export type UntrustedPolicy = "strip" | "keep";

export interface AssessInput extends Omit<TrustInput, "permissionRules"> {
  store: ProjectTrustStore;
  answers: RuleAnswerStore;
  /** The project config file, else the project directory. */
  file: string;
  policy: UntrustedPolicy;
  /** The project rule file's allow rules as written; `file` is its absolute path. */
  permissionRules?: { file: string; shownAs: string; allow: string[] };
}

export function assessProjectTrust(input: AssessInput): ProjectTrust {
  let answered: string[] = [];
  let answersError: string | undefined;
  if (input.permissionRules) {
    try {
      // A linked worktree (the gateway's worktree sessions) shares its main checkout's answers.
      const main = mainCheckoutOf(input.projectRoot);
      answered = [...new Set([...input.answers.rules(input.projectRoot), ...(main ? input.answers.rules(main) : [])])];
    } catch (error) {
      if (!(error instanceof ProjectTrustStoreError)) throw error;
      answersError = error.message;
    }
  }
  const items = trustItems({ ...input, permissionRules: input.permissionRules && { ...input.permissionRules, answered } });
  const digest = trustDigest(items, input.projectRoot);
  // A project whose only item is its rule file is reviewed in that file.
  const file = input.permissionRules && items.length > 0 && items.every((i) => i.kind === "permission_rules") ? input.permissionRules.file : input.file;
  const ruleItem = items.find((i) => i.kind === "permission_rules");
  const pinnedRules = ruleItem ? (ruleItem.pin as { allow: string[] }).allow : [];
  const base = { root: input.projectRoot, file, items, digest, ruleAnswersFile: input.answers.file, ...(answersError ? { answersError } : {}) };
  if (items.length === 0) return { ...base, state: "none", active: true, projectAllowRules: answered };
  let state: TrustState;
  let storeError: string | undefined;
  try {
    const record = input.store.find(input.projectRoot);
    state = !record ? "untrusted" : record.digest === digest ? "trusted" : "changed";
    // A linked git worktree (the gateway's worktree sessions) of a trusted checkout, with the very same
    // settings and files, is trusted with it.
    const main = state === "trusted" ? undefined : mainCheckoutOf(input.projectRoot);
    if (main && input.store.find(main)?.digest === digest) state = "trusted";
  } catch (error) {
    if (!(error instanceof ProjectTrustStoreError)) throw error;
    state = "untrusted";
    storeError = error.message;
  }
  const active = state === "trusted" || input.policy === "keep";
  return { ...base, state, active, projectAllowRules: active ? [...answered, ...pinnedRules] : answered, ...(storeError ? { storeError } : {}) };
}

/** The main checkout of a linked git worktree (`.git` is a file: `gitdir: <main>/.git/worktrees/<name>`). */
function mainCheckoutOf(root: string): string | undefined {
  let text: string;
  try {
    if (!statSync(join(root, ".git")).isFile()) return undefined;
    text = readFileSync(join(root, ".git"), "utf8");
  } catch {
    return undefined;
  }
  const gitdir = /^gitdir: (.+)$/m.exec(text)?.[1]?.trim();
  if (!gitdir) return undefined;
  const dir = resolve(root, gitdir);
  if (basename(dirname(dir)) !== "worktrees" || basename(dirname(dirname(dir))) !== ".git") return undefined;
  return dirname(dirname(dirname(dir)));
}

/** Removes the untrusted items' keys from the layer documents (copies are made where a key is removed). */
export function withoutUntrusted(docs: Partial<Record<LayerName, Record<string, unknown>>>, trust: ProjectTrust): Partial<Record<LayerName, Record<string, unknown>>> {
  if (trust.active) return docs;
  const out: Partial<Record<LayerName, Record<string, unknown>>> = { ...docs };
  for (const item of trust.items) {
    for (const { layer, path } of item.remove) {
      const doc = out[layer];
      if (!doc) continue;
      const copy = structuredClone(doc);
      let parent: unknown = copy;
      for (const key of path.slice(0, -1)) parent = parent && typeof parent === "object" ? (parent as Record<string, unknown>)[key] : undefined;
      if (parent && typeof parent === "object") delete (parent as Record<string, unknown>)[path.at(-1)!];
      out[layer] = copy;
    }
  }
  return out;
}

/**
 * The one line that says what a session started without and how to allow it. `hint` adds a host's own
 * way (exec's `--trust-project`).
 */
export function untrustedNotice(trust: ProjectTrust, cwd: string, hint?: string): string {
  const file = relative(cwd, trust.file) || trust.file;
  const why = trust.state === "changed" ? "changed since you trusted it" : "is not trusted";
  const dir = relative(cwd, trust.root) === "" ? "" : ` ${trust.root}`;
  const damaged = trust.storeError ? ` (${trust.storeError})` : "";
  return `${file} ${why}${damaged}; started without: ${trust.items.map((i) => i.shown).join("; ")}. Review it, then run 'agent trust${dir}'${hint ? ` ${hint}` : ""}`;
}

/** The items under config key `key` (e.g. `providers.team.auth`) that are left out of this load: none while active. */
export function heldBack(trust: ProjectTrust, key: string): TrustItem[] {
  if (trust.active) return [];
  return trust.items.filter((i) => i.key === key || i.key.startsWith(`${key}.`));
}

/**
 * Why `what` cannot go ahead with settings the project may not use yet: the settings (each names its
 * field), the file, and the command that trusts them (with the project directory, as the user may be in a
 * subdirectory).
 */
export function heldBackNotice(trust: ProjectTrust, items: TrustItem[], cwd: string, what: string): string {
  const file = relative(cwd, trust.file) || trust.file;
  const why = trust.state === "changed" ? "changed since you trusted it" : "is not trusted";
  const damaged = trust.storeError ? ` (${trust.storeError})` : "";
  return `${what} uses settings of ${file}, which ${why}${damaged}: ${items.map((i) => i.shown).join("; ")}. Review them, then run 'agent trust ${trust.root}'`;
}

/** Records the user's consent to exactly these settings (what `agent trust` and the TUI dialog do). */
export function grantTrust(store: ProjectTrustStore, trust: ProjectTrust): void {
  store.trust({ project: trust.root, digest: trust.digest, file: trust.file, items: trust.items.map((i) => i.shown) });
}
