// The permission gate the engine calls before every tool call: the rules (global file, project file,
// session), then the configured matcher — standard, bypass, bypass_plus or autonomous.
import { join, relative, resolve } from "node:path";
import { lstatSync } from "node:fs";
import type { PermissionDecision, PermissionGate as EngineGate, PermissionRequest } from "../agent/permission.ts";
import type { LoadedConfig } from "../config/load.ts";
import { RuleAnswerStore } from "../config/trust/rule-answers.ts";
import { ProjectTrustStoreError } from "../config/trust/store.ts";
import type { PERMISSION_MATCHERS } from "../config/schema/session.ts";
import type { ProviderCallDeps } from "../providers/client.ts";
import type { Clock } from "../util/clock.ts";
import { type Classifier, providerClassifier } from "./classifier.ts";
import { type Evaluation, RuleEvaluator } from "./evaluate.ts";
import { escapeGlob } from "./paths.ts";
import { appendAllowRule, PermissionRuleError, readRuleFile, RULE_FILE_NAME, type RuleProblem } from "./rule-file.ts";
import { NO_PERMISSION_TOOLS, parseRule, type Rule } from "./rules.ts";
import { Secrets } from "./secrets.ts";
import type { Autonomy } from "../sandbox/settings.ts";

export type { PermissionDecision, PermissionRequest };

export type MatcherName = (typeof PERMISSION_MATCHERS)[number];

/**
 * The engine's gate contract (src/agent/permission.ts) plus what the session wires elsewhere. An `ask`'s
 * `suggestedRule` is what allowAlways adds (several joined by ", "), or "" when no rule can allow the call.
 */
export interface PermissionGate extends EngineGate {
  readonly matcher: MatcherName;
  /** secret_words / secret_files of the config, for redaction, child environments and search results. */
  readonly secrets: Secrets;
  /** Things the user should know (a skipped symlinked rule file). */
  readonly warnings: readonly string[];
  /** What runs without a question now (`/autonomy`, Shift+Tab in the view). */
  readonly autonomy: Autonomy;
  /** Throws when `sandboxed` is asked for and no sandbox runs. */
  setAutonomy(level: Autonomy): void;
}

export interface GateOptions {
  loaded: LoadedConfig;
  projectRoot: string;
  globalConfigDir: string;
  clock: Clock;
  /** The autonomous matcher's judge; by default the configured mini/classifier model. */
  classify?: Classifier;
  /** Home directory for `~` in patterns (default $HOME). */
  home?: string;
  /** Extra provider dependencies for the default classifier (fetch, device tokens). */
  providerDeps?: Partial<ProviderCallDeps>;
  /** The session's own directory of kept tool outputs: reading it back is allowed like the project's files. */
  toolOutputDir?: string;
  /** The session's sandbox and autonomy (src/sandbox); absent: no sandbox, autonomy ask. */
  sandbox?: GateSandbox;
  /** Rules of this run only (`--allow`, `--deny`): pooled with the files' rules, never written anywhere. */
  runRules?: { allow?: readonly string[]; deny?: readonly string[] };
}

export interface GateSandbox {
  /** Whether shell commands really run in a sandbox (false after a fallback to off). */
  active: boolean;
  autonomy: Autonomy;
  /** `workspace_write, no network`, for the escape question. */
  description: string;
}

const DEFAULT_MAX_DENIALS = 3;

/**
 * Allowed unless a rule says otherwise: reading and searching the project's own files (`read` also
 * covers glob and grep). Deny and ask rules still win, secret files still ask, `.agentblock` still blocks.
 */
export const BUILTIN_ALLOW_RULES: readonly string[] = ["read(./**)"];

/** Loads both rule files; every problem of both is reported at once as a PermissionRuleError. */
export async function loadPermissionGate(opts: GateOptions): Promise<PermissionGate> {
  const home = opts.home ?? process.env.HOME ?? "/";
  const base = { projectRoot: opts.projectRoot, home };
  const warnings: string[] = [];
  const problems: RuleProblem[] = [];
  const load = (path: string, shownAs: string): Rule[] => {
    try {
      return readRuleFile(path, shownAs);
    } catch (error) {
      if (!(error instanceof PermissionRuleError)) throw error;
      problems.push(...error.problems);
      return [];
    }
  };
  const globalRules = load(join(opts.globalConfigDir, RULE_FILE_NAME), join(opts.globalConfigDir, RULE_FILE_NAME));
  const projectFile = join(opts.projectRoot, ".agent", RULE_FILE_NAME);
  const projectShown = relative(opts.projectRoot, projectFile);
  const followSymlinks = opts.loaded.config.daemon?.follow_symlinks_for_configs !== false;
  let projectRules: Rule[] = [];
  if (!followSymlinks && isSymlink(projectFile)) warnings.push(`${projectShown} is a symlink and daemon.follow_symlinks_for_configs is off; its rules were skipped`);
  else projectRules = load(projectFile, projectShown);
  const runRules: Rule[] = [];
  for (const effect of ["allow", "deny"] as const) {
    for (const text of opts.runRules?.[effect] ?? []) {
      const parsed = parseRule(text);
      if (parsed.ok) runRules.push({ ...parsed.rule, effect, origin: `--${effect}` });
      else problems.push({ file: `--${effect}`, line: 1, column: parsed.offset + 1, message: `rule '${text}': ${parsed.message}` });
    }
  }
  if (problems.length > 0) throw new PermissionRuleError(problems);
  // Project trust (src/config/trust): the file's allow rules are used only when the user added them
  // ("allow always in this project") or trusted the project; the loader's notice names the others.
  const usableAllows = new Set(opts.loaded.trust.projectAllowRules);
  const waitingAllows = projectRules.filter((r) => r.effect === "allow" && !usableAllows.has(r.text));
  projectRules = projectRules.filter((r) => r.effect !== "allow" || usableAllows.has(r.text));
  const answers = new RuleAnswerStore(opts.loaded.trust.ruleAnswersFile);

  const sessionRules: Rule[] = [];
  const defaultRules = BUILTIN_ALLOW_RULES.map((text) => {
    const parsed = parseRule(text);
    if (!parsed.ok) throw new Error(`built-in rule ${text}: ${parsed.message}`);
    return { ...parsed.rule, effect: "allow" as const, origin: "built-in" };
  });
  if (opts.toolOutputDir) {
    // A data dir whose path the rule grammar cannot hold (a parenthesis) goes without it: reading back then asks.
    const parsed = parseRule(`read(${escapeGlob(resolve(opts.toolOutputDir))}/**)`);
    if (parsed.ok) defaultRules.push({ ...parsed.rule, effect: "allow" as const, origin: "built-in" });
  }
  const sandboxed = opts.sandbox?.active === true;
  let autonomy: Autonomy = opts.sandbox?.autonomy ?? "ask";
  // Accepting edits is a built-in rule, so deny and ask rules, secret files and symlinks hold as for read(./**).
  const autonomyRules: Rule[] = [];
  const setAutonomy = (level: Autonomy) => {
    if (level === "sandboxed" && !sandboxed) throw new Error("autonomy sandboxed needs a sandbox, and shell commands run without one in this session");
    autonomy = level;
    autonomyRules.length = 0;
    const parsed = parseRule("edit(./**)");
    if (level !== "ask" && parsed.ok) autonomyRules.push({ ...parsed.rule, effect: "allow", origin: `autonomy ${level}` });
  };
  setAutonomy(autonomy === "sandboxed" && !sandboxed ? "accept_edits" : autonomy);
  const secrets = Secrets.fromConfig(opts.loaded, base);
  const shellDialect = opts.loaded.config.agent_behavior?.shell.command ?? "bash";
  const evaluator = new RuleEvaluator(() => [...defaultRules, ...autonomyRules, ...globalRules, ...projectRules, ...runRules, ...sessionRules], base, secrets, shellDialect);
  // A call that only a project allow rule waiting for trust would allow: the reason says so, not "no rule".
  const waiting = new RuleEvaluator(() => waitingAllows, base, secrets, shellDialect);
  const untrustedReason = (call: { tool: string; input: Record<string, unknown>; cwd: string }, ev: Evaluation): Evaluation => {
    if (ev.effect !== null || waitingAllows.length === 0) return ev;
    const would = waiting.evaluate(call, "all");
    if (would.effect !== "allow") return ev;
    return { ...ev, reason: `the project is not trusted: its allow rule ${would.rule ?? `in ${projectShown}`} is not used until you run 'agent trust' (${ev.reason})` };
  };
  const matcher: MatcherName = opts.loaded.config.default_permission_matcher ?? "standard";
  const autonomous = opts.loaded.config.autonomous_permission_matcher;
  const maxDenials = autonomous?.max_consecutive_denials ?? DEFAULT_MAX_DENIALS;
  const classify = opts.classify ?? providerClassifier({ loaded: opts.loaded, clock: opts.clock, redact: (t) => secrets.redact(t), deps: opts.providerDeps });
  let denialsInARow = 0;

  const ask = (ev: Evaluation, reason = ev.reason): PermissionDecision => ({ kind: "ask", reason, suggestedRule: ev.suggestions.join(", ") });
  const fromRules = (ev: Evaluation): PermissionDecision | null => {
    if (ev.effect === "allow") return ev.rule ? { kind: "allow", rule: ev.rule } : { kind: "allow" };
    if (ev.effect === "deny") return { kind: "deny", reason: ev.reason, rule: ev.rule };
    if (ev.effect === "ask") return ask(ev);
    return null;
  };

  return {
    matcher,
    secrets,
    warnings,
    get autonomy() {
      return autonomy;
    },
    setAutonomy,
    async check(req, signal) {
      if (NO_PERMISSION_TOOLS.includes(req.tool) || matcher === "bypass") return { kind: "allow" };
      const call = { tool: req.tool, input: req.input, cwd: req.cwd };
      if (req.tool === "shell" && sandboxed && req.input.outside_sandbox === true) {
        // Leaving the sandbox is its own consent: deny rules still win, every other answer is the user's.
        const ev = evaluator.evaluate(call, "all");
        if (ev.effect === "deny") return { kind: "deny", reason: ev.reason, rule: ev.rule };
        const rules = ev.effect === "ask" || ev.effect === null ? `; ${ev.reason}` : "";
        return { kind: "ask", reason: `the command asks to run OUTSIDE the sandbox (${opts.sandbox!.description}), with full access to your files and the network${rules}`, suggestedRule: "" };
      }
      if (matcher === "bypass_plus") return fromRules(evaluator.evaluate(call, "deny_only")) ?? { kind: "allow" };
      const ev = untrustedReason(call, evaluator.evaluate(call, "all"));
      // Sandboxed autonomy: a command no rule decides (or that cannot be read, when no deny rule could
      // match it) runs contained without a question. Ask rules written by the user still ask.
      if (req.tool === "shell" && sandboxed && autonomy === "sandboxed" && (ev.effect === null || ev.unreadable)) {
        if (evaluator.evaluate(call, "deny_only").effect === "allow") return { kind: "allow", rule: "sandboxed autonomy" };
      }
      const decided = fromRules(ev);
      if (decided) return decided;
      if (matcher === "standard") return ask(ev);

      let verdict;
      try {
        verdict = await classify({ tool: req.tool, input: req.input, cwd: req.cwd, projectRoot: req.projectRoot, rules: autonomous?.classifier_rules ?? null }, signal);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        // Never allow on a failure: the user decides instead.
        return ask(ev, `the permission classifier could not decide (${secrets.redact((error as Error).message)}); ${ev.reason}`);
      }
      if (verdict.decision === "allow") {
        denialsInARow = 0;
        return { kind: "allow", rule: "autonomous classifier" };
      }
      denialsInARow++;
      if (denialsInARow > maxDenials) return ask(ev, `the permission classifier denied ${denialsInARow} calls in a row, so you decide: ${verdict.reason}`);
      return { kind: "deny", reason: `the permission classifier denied this call: ${verdict.reason}`, rule: "autonomous classifier" };
    },
    async allowAlways(req, scope) {
      const ev = evaluator.evaluate({ tool: req.tool, input: req.input, cwd: req.cwd }, "all");
      const added: string[] = [];
      for (const text of ev.suggestions) {
        const parsed = parseRule(text);
        if (!parsed.ok) continue;
        if (scope === "project") {
          recordAnswer(answers, opts.projectRoot, text);
          appendAllowRule(projectFile, text);
        }
        (scope === "project" ? projectRules : sessionRules).push({ ...parsed.rule, effect: "allow", origin: scope === "project" ? projectShown : "session" });
        added.push(text);
      }
      return added.join(", ");
    },
    recordAnswer() {
      // The user has seen where the agent stands: the classifier gets a fresh run of denials.
      denialsInARow = 0;
    },
  };
}

/**
 * The user's own answer is recorded under the data root before the rule is written, so it needs no
 * project trust next session. A damaged record file (reported when the config loads) leaves the rule to
 * wait for `agent trust` then; the answer still holds for this session.
 */
function recordAnswer(answers: RuleAnswerStore, projectRoot: string, rule: string): void {
  try {
    answers.add(projectRoot, [rule]);
  } catch (error) {
    if (!(error instanceof ProjectTrustStoreError)) throw error;
  }
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
