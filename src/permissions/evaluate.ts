// Checks one tool call against the rules: deny beats ask beats allow. Shell commands are checked part
// by part; file tools by path (as written and through symlinks), a patch-form edit by each file it
// touches; web_fetch by host; other tools by name. The result also carries the rules that "allow always" would add for the parts no rule decided.
import { BUILTIN_TOOL_TRAITS, type ToolTraits, type ToolTraitTable } from "../protocol/tool-traits.ts";
import { PatchSyntaxError, patchPaths } from "../tools/edit/patch-parse.ts";
import { isOutside, PathPattern, pathForms, type PatternBase, rulePath } from "./paths.ts";
import { type Rule, type RuleEffect, type RuleTarget, ruleCoversTool } from "./rules.ts";
import type { Secrets } from "./secrets.ts";
import { expandCommands, restrictiveForms, suggestShellRule } from "./shell-forms.ts";
import { type ShellWord, type SimpleCommand, splitShellCommand } from "./shell-parse.ts";

export interface ToolCall {
  tool: string;
  input: Record<string, unknown>;
  cwd: string;
}

export interface Evaluation {
  /** null: no rule decided (the matcher then asks, allows or consults its classifier). */
  effect: RuleEffect | null;
  reason: string;
  /** The deciding rule with its origin, e.g. `shell(rm:*) (.agent/permissions.yaml:4:5)`. */
  rule?: string;
  /** Rules that would allow the undecided parts; empty when no rule could (or nothing is undecided). */
  suggestions: string[];
  /** An ask only because the shell command cannot be read part by part (no rule asked). */
  unreadable?: boolean;
}

/** `deny_only`: bypass_plus, where only deny rules count and everything else is allowed. */
export type EvaluationMode = "all" | "deny_only";

export function describeRule(rule: Rule): string {
  return `${rule.text} (${rule.origin})`;
}

type Match = "yes" | "maybe" | "no";

/** A shell rule against a command's words; `maybe` when a run-time word could make it match. */
function shellMatch(target: Extract<RuleTarget, { kind: "shell" }>, words: ShellWord[]): Match {
  const n = target.words.length;
  for (let i = 0; i < n; i++) {
    const w = words[i];
    if (!w) return "no";
    if (w.dynamic) return "maybe";
    if (w.text !== target.words[i]) return "no";
  }
  if (target.prefix || words.length === n) return "yes";
  return words.slice(n).some((w) => w.dynamic) ? "maybe" : "no";
}

function commandText(c: SimpleCommand): string {
  return c.words.map((w) => w.text).join(" ");
}

export class RuleEvaluator {
  private readonly patterns = new Map<Rule, PathPattern>();

  constructor(
    private readonly rules: () => readonly Rule[],
    private readonly base: PatternBase,
    private readonly secrets: Secrets,
    /** `agent_behavior.shell.command`: PowerShell syntax is not tokenized, so its commands are never split. */
    private readonly shellDialect: "bash" | "powershell" = "bash",
    /** What each tool is (how its rules read, where its paths are): the built-ins unless a test adds one. */
    private readonly traits: ToolTraitTable = BUILTIN_TOOL_TRAITS,
  ) {}

  evaluate(call: ToolCall, mode: EvaluationMode): Evaluation {
    const rules = this.rules().filter((r) => ruleCoversTool(r, call.tool, this.traits) && (mode === "all" || r.effect === "deny"));
    const bare = (effect: RuleEffect) => rules.find((r) => r.effect === effect && r.target.kind === "any");
    const denied = bare("deny");
    if (denied) return { effect: "deny", reason: `\`${call.tool}\` is denied by rule ${describeRule(denied)}`, rule: describeRule(denied), suggestions: [] };
    const specific = rules.filter((r) => r.target.kind !== "any");
    let result: Evaluation;
    // Under deny_only nothing but a deny rule can stop a call, so an unreadable one is checked against those alone.
    const permissive = mode === "deny_only" || bare("allow") !== undefined;
    const traits = Object.hasOwn(this.traits, call.tool) ? this.traits[call.tool] : undefined;
    if (traits?.permission === "shell") result = this.shell(call, specific, bare("allow"), permissive, mode);
    else if (traits?.paths) result = this.file(call, traits.paths, specific, bare("allow"), mode);
    else if (traits?.permission === "domain") result = this.webFetch(call, specific, bare("allow"), permissive);
    else {
      const allowed = bare("allow");
      result = allowed ? { effect: "allow", reason: "", rule: describeRule(allowed), suggestions: [] } : { effect: null, reason: `no rule allows \`${call.tool}\``, suggestions: [call.tool] };
    }
    if (result.effect === "deny") return result;
    const asked = bare("ask");
    if (asked) return { effect: "ask", reason: `rule ${describeRule(asked)} asks before every \`${call.tool}\` call`, rule: describeRule(asked), suggestions: [] };
    if (mode === "deny_only" && result.effect !== "ask") return { effect: "allow", reason: "", suggestions: [] };
    return result;
  }

  private shell(call: ToolCall, rules: Rule[], bareAllow: Rule | undefined, permissive: boolean, mode: EvaluationMode): Evaluation {
    const command = typeof call.input.command === "string" ? call.input.command : "";
    const restrictive = rules.filter((r) => r.effect !== "allow");
    const unreadable = (reason: string): Evaluation =>
      permissive && restrictive.length === 0
        ? { effect: "allow", reason: "", rule: bareAllow && describeRule(bareAllow), suggestions: [] }
        : { effect: "ask", reason: `the command cannot be checked part by part (${reason})`, suggestions: [], unreadable: true };
    if (this.shellDialect === "powershell") return unreadable("PowerShell commands are not split into parts");
    const split = splitShellCommand(command);
    if (!split.ok) return unreadable(split.reason);
    const expanded = expandCommands(split.commands);
    if (!expanded.ok) return unreadable(expanded.reason);
    if (expanded.commands.length === 0) return bareAllow ? { effect: "allow", reason: "", rule: describeRule(bareAllow), suggestions: [] } : { effect: null, reason: "the command runs nothing", suggestions: [] };

    const asks: string[] = [];
    const undecided: SimpleCommand[] = [];
    const allowedBy = new Set<string>();
    let askRule: string | undefined;
    for (const part of expanded.commands) {
      const forms = restrictiveForms(part);
      if (!forms.ok) return unreadable(forms.reason);
      for (const rule of restrictive) {
        if (rule.target.kind !== "shell") continue;
        const m = forms.commands.map((f) => shellMatch(rule.target as Extract<RuleTarget, { kind: "shell" }>, f.words));
        if (rule.effect === "deny" && m.includes("yes"))
          return { effect: "deny", reason: `\`${commandText(part)}\` is denied by rule ${describeRule(rule)}`, rule: describeRule(rule), suggestions: [] };
        if (m.includes("yes") || m.includes("maybe")) {
          askRule ??= describeRule(rule);
          asks.push(rule.effect === "deny" ? `\`${commandText(part)}\` might be denied by rule ${describeRule(rule)} (part of it is only known at run time)` : `rule ${describeRule(rule)} asks before \`${commandText(part)}\``);
        }
      }
      const secret = mode === "all" ? part.words.find((w) => !w.dynamic && this.secrets.isSecretFile(w.text, call.cwd)) : undefined;
      if (secret) asks.push(`\`${commandText(part)}\` touches the secret file \`${secret.text}\``);
      if (bareAllow) continue;
      const allowed = rules.find((r) => r.effect === "allow" && r.target.kind === "shell" && shellMatch(r.target, part.words) === "yes");
      if (allowed) allowedBy.add(describeRule(allowed));
      else if (!secret) undecided.push(part);
    }
    if (asks.length > 0) return { effect: "ask", reason: asks.join("; "), rule: askRule, suggestions: [] };
    if (undecided.length > 0) {
      const suggestions = undecided.some((c) => c.words[0]?.dynamic) ? [] : [...new Set(undecided.map(suggestShellRule))];
      return { effect: null, reason: `no rule allows ${undecided.map((c) => `\`${commandText(c)}\``).join(", ")}`, suggestions };
    }
    return { effect: "allow", reason: "", rule: bareAllow ? describeRule(bareAllow) : [...allowedBy].join(", "), suggestions: [] };
  }

  private pattern(rule: Rule): PathPattern {
    let p = this.patterns.get(rule);
    if (!p) {
      p = new PathPattern((rule.target as Extract<RuleTarget, { kind: "path" }>).pattern, this.base);
      this.patterns.set(rule, p);
    }
    return p;
  }

  private file(call: ToolCall, paths: NonNullable<ToolTraits["paths"]>, rules: Rule[], bareAllow: Rule | undefined, mode: EvaluationMode): Evaluation {
    if (paths === "path-or-patch" && typeof call.input.patch === "string") return this.patch(call.tool, call.input.patch, call.cwd, rules, bareAllow, mode);
    const given = typeof call.input.path === "string" && call.input.path !== "" ? call.input.path : paths === "path-or-cwd" ? call.cwd : null;
    if (given === null) return bareAllow ? { effect: "allow", reason: "", rule: describeRule(bareAllow), suggestions: [] } : { effect: null, reason: `\`${call.tool}\` names no path`, suggestions: [] };
    return this.filePath(call.tool, given, call.cwd, rules, bareAllow, mode);
  }

  /**
   * One path of a file tool, as written and where it leads through symlinks: a deny or ask rule matching
   * either form decides; allowing takes an allow rule for each form (a link out of the project is
   * allowed only where its target is).
   */
  private filePath(tool: string, given: string, cwd: string, rules: Rule[], bareAllow: Rule | undefined, mode: EvaluationMode): Evaluation {
    const { lexical, real } = pathForms(given, cwd, this.base.home);
    const shown = rulePath(lexical, this.base);
    const realShown = rulePath(real, this.base);
    const linked = realShown !== shown;
    const named = linked ? `\`${shown}\` (a symlink to \`${realShown}\`)` : `\`${shown}\``;
    const pathRules = rules.filter((r) => r.target.kind === "path");
    const hits = (effect: RuleEffect) => pathRules.find((r) => r.effect === effect && (this.pattern(r).matches(lexical) || this.pattern(r).matches(real)));
    const denied = hits("deny");
    if (denied) return { effect: "deny", reason: `\`${tool}\` on ${named} is denied by rule ${describeRule(denied)}`, rule: describeRule(denied), suggestions: [] };
    const asked = hits("ask");
    if (asked) return { effect: "ask", reason: `rule ${describeRule(asked)} asks before \`${tool}\` on ${named}`, rule: describeRule(asked), suggestions: [] };
    const allows = pathRules.filter((r) => r.effect === "allow");
    const lexicalAllow = allows.find((r) => this.pattern(r).matches(lexical));
    const realAllow = allows.find((r) => this.pattern(r).matches(real));
    const literal = (path: string) => allows.some((r) => this.pattern(r).literal && this.pattern(r).matches(path));
    const searchesDirectory = this.traits[tool]?.paths === "path-or-cwd";
    const exact = (path: string) => (searchesDirectory ? `${tool}(${path === "./" ? "./**" : `${path}/**`})` : `${tool}(${path})`);
    // A secret file asks even when a wildcard allows it; only rules naming that very file let it through.
    if (mode === "all" && this.traits[tool]?.showsContent && !(literal(lexical) && literal(real)) && this.secrets.isSecretFile(lexical)) {
      return { effect: "ask", reason: `${named} is a secret file (permissions.secret_files)`, suggestions: searchesDirectory ? [] : [...new Set([exact(shown), exact(realShown)])] };
    }
    if (lexicalAllow && realAllow) {
      const by = lexicalAllow === realAllow ? describeRule(lexicalAllow) : `${describeRule(lexicalAllow)}, ${describeRule(realAllow)}`;
      return { effect: "allow", reason: "", rule: by, suggestions: [] };
    }
    if (bareAllow) return { effect: "allow", reason: "", rule: describeRule(bareAllow), suggestions: [] };
    if (!linked) return { effect: null, reason: `no rule allows \`${tool}\` on \`${shown}\``, suggestions: [exact(shown)] };
    const suggestions = [...(lexicalAllow ? [] : [exact(shown)]), ...(realAllow ? [] : [exact(realShown)])];
    return { effect: null, reason: `no rule allows \`${tool}\` on \`${realShown}\`, where \`${shown}\` leads through a symlink${isOutside(real, this.base) ? " (outside the project)" : ""}`, suggestions };
  }

  /** A patch-form edit: each file it adds, changes, deletes or moves is checked as an edit of that path. */
  private patch(tool: string, text: string, cwd: string, rules: Rule[], bareAllow: Rule | undefined, mode: EvaluationMode): Evaluation {
    let paths: string[];
    try {
      paths = patchPaths(text);
    } catch (error) {
      if (!(error instanceof PatchSyntaxError)) throw error;
      // The tool refuses a patch it cannot read and changes nothing.
      return bareAllow ? { effect: "allow", reason: "", rule: describeRule(bareAllow), suggestions: [] } : { effect: null, reason: "the patch cannot be read, so the files it changes are not known", suggestions: [] };
    }
    const results = paths.map((path) => this.filePath(tool, path, cwd, rules, bareAllow, mode));
    const of = (effect: RuleEffect | null) => results.filter((r) => r.effect === effect);
    const suggestions = (list: Evaluation[]) => [...new Set(list.flatMap((r) => r.suggestions))];
    // Every reason names all the files, so the person (or exec's denial) sees everything the patch touches.
    const all = `the patch touches ${paths.map((p) => `\`${rulePath(pathForms(p, cwd, this.base.home).lexical, this.base)}\``).join(", ")}`;
    const denied = of("deny");
    if (denied.length > 0) return { effect: "deny", reason: `${all}; ${denied.map((r) => r.reason).join("; ")}`, rule: denied[0]!.rule, suggestions: [] };
    const asked = of("ask");
    const undecided = of(null);
    if (asked.length > 0) return { effect: "ask", reason: `${all}; ${[...asked, ...undecided].map((r) => r.reason).join("; ")}`, rule: asked[0]!.rule, suggestions: suggestions([...asked, ...undecided]) };
    if (undecided.length > 0) return { effect: null, reason: `${all}; ${undecided.map((r) => r.reason).join("; ")}`, suggestions: suggestions(undecided) };
    return { effect: "allow", reason: "", rule: [...new Set(results.map((r) => r.rule).filter((r) => r !== undefined))].join(", "), suggestions: [] };
  }

  private webFetch(call: ToolCall, rules: Rule[], bareAllow: Rule | undefined, permissive: boolean): Evaluation {
    let host: string | null = null;
    try {
      host = typeof call.input.url === "string" ? new URL(call.input.url).hostname.toLowerCase() : null;
    } catch {
      host = null;
    }
    if (host === null) {
      const restrictive = rules.some((r) => r.effect !== "allow");
      if (permissive && !restrictive) return { effect: "allow", reason: "", rule: bareAllow && describeRule(bareAllow), suggestions: [] };
      return { effect: "ask", reason: "the URL cannot be read, so its domain cannot be checked", suggestions: [] };
    }
    const matching = rules.filter((r) => {
      if (r.target.kind !== "domain") return false;
      return host === r.target.host ? !r.target.subdomains : host.endsWith(`.${r.target.host}`) && r.target.subdomains;
    });
    for (const effect of ["deny", "ask", "allow"] as const) {
      const rule = matching.find((r) => r.effect === effect);
      if (rule) return { effect, reason: effect === "allow" ? "" : `rule ${describeRule(rule)} ${effect === "deny" ? "denies" : "asks before"} fetching from ${host}`, rule: describeRule(rule), suggestions: [] };
    }
    if (bareAllow) return { effect: "allow", reason: "", rule: describeRule(bareAllow), suggestions: [] };
    return { effect: null, reason: `no rule allows fetching from ${host}`, suggestions: [`web_fetch(domain:${host})`] };
  }
}
