// The rule grammar (docs/permissions.md): `tool`, `tool(specifier)`, `mcp__server__tool`,
// `mcp__server__*`, and the same for extension tools: `ext__extension__tool`, `ext__extension__*`. The
// specifier depends on the tool: a command for `shell` (`:*` at the end makes it a prefix), a path glob
// for the file tools, `domain:host` for `web_fetch`.
import { BUILTIN_TOOL_TRAITS, noPermissionTools, type ToolTraitTable, toolAliases, toolNames } from "../protocol/tool-traits.ts";
import { didYouMean } from "../util/did-you-mean.ts";
import { splitShellCommand } from "./shell-parse.ts";

export type RuleEffect = "allow" | "ask" | "deny";

export type RuleTarget =
  | { kind: "any" }
  | { kind: "shell"; words: string[]; prefix: boolean }
  | { kind: "path"; pattern: string }
  | { kind: "domain"; host: string; subdomains: boolean };

export interface Rule {
  /** The rule as written. */
  text: string;
  effect: RuleEffect;
  /** A built-in, MCP or extension tool name, or `mcp__server__` / `ext__extension__` for a `*` rule. */
  tool: string;
  mcpServerWide: boolean;
  target: RuleTarget;
  /** Where the rule came from: `file:line:column`, or `session`. */
  origin: string;
}

export type RuleParse = { ok: true; rule: Omit<Rule, "effect" | "origin"> } | { ok: false; message: string; offset: number };

/** Tools that never need permission (their traits say so): the engine's own, the goal's, the plan, delegation. */
export const NO_PERMISSION_TOOLS: readonly string[] = noPermissionTools(BUILTIN_TOOL_TRAITS);

/** Tools a rule may name: those that need permission, except stand-ins (`apply_patch(...)` is written `edit(...)`). */
export const ruleTools = (traits: ToolTraitTable): string[] => toolNames(traits).filter((t) => traits[t]!.permission !== "never" && !traits[t]!.standsInFor);

export const RULE_TOOLS: readonly string[] = ruleTools(BUILTIN_TOOL_TRAITS);

/** Whether a rule applies to calls of `tool`: its own, or one its traits say it governs (`read(...)` also governs search, `edit(...)` every file change). */
export function ruleCoversTool(rule: Pick<Rule, "tool" | "mcpServerWide">, tool: string, traits: ToolTraitTable = BUILTIN_TOOL_TRAITS): boolean {
  if (rule.mcpServerWide) return tool.startsWith(rule.tool);
  return rule.tool === tool || traits[tool]?.governedBy === rule.tool;
}

const MCP_NAME = /^mcp__([A-Za-z0-9_-]+?)__([A-Za-z0-9_.-]+|\*)$/;
const EXTENSION_NAME = /^ext__([a-z0-9-]+?)__([a-z0-9_-]+|\*)$/;
const allowed = (traits: ToolTraitTable) =>
  `a built-in tool (${ruleTools(traits).join(", ")}) or mcp__<server>__<tool> / mcp__<server>__* or ext__<extension>__<tool> / ext__<extension>__*`;

/** Claude Code's tool names in rules (`Bash(git *)`, `Read(./src/**)`) and ours. */
const CLAUDE_CODE_TOOLS: Record<string, string> = { Bash: "shell", Read: "read", Edit: "edit", MultiEdit: "edit", Write: "write", Glob: "glob", Grep: "grep", WebFetch: "web_fetch", WebSearch: "web_search" };

/** Our spelling of a rule written in Claude Code's form, so the error can name it; null for other names. */
export function claudeCodeForm(name: string, specifier: string | null): string | null {
  const ours = CLAUDE_CODE_TOOLS[name];
  if (!ours) return null;
  if (specifier === null || specifier.trim() === "") return ours;
  let spec = specifier.trim();
  // `Bash(npm run test *)` and `Bash(npm run test:*)` are both prefixes there; ours is `:*`.
  if (ours === "shell" && spec.endsWith(" *")) spec = `${spec.slice(0, -2).trimEnd()}:*`;
  // `Read(//abs/path)` is an absolute path there.
  if (ours !== "shell" && spec.startsWith("//")) spec = spec.slice(1);
  return `${ours}(${spec})`;
}

/** Parses one rule; `traits`: the tools it may name (the built-ins unless a test adds one). */
export function parseRule(text: string, traits: ToolTraitTable = BUILTIN_TOOL_TRAITS): RuleParse {
  const open = text.indexOf("(");
  const written = (open === -1 ? text : text.slice(0, open)).trim();
  const name = toolAliases(traits)[written] ?? written;
  const allowedText = allowed(traits);
  const nameOffset = text.length - text.trimStart().length;
  if (name === "") return { ok: false, message: "the rule is empty", offset: 0 };
  if (/\s/.test(name)) return { ok: false, message: `'${name}' is not a tool name; allowed: ${allowedText}`, offset: nameOffset };
  let specifier: string | null = null;
  if (open !== -1) {
    if (!text.trimEnd().endsWith(")")) return { ok: false, message: "a rule with '(' must end with ')'", offset: text.trimEnd().length };
    specifier = text.slice(open + 1, text.trimEnd().length - 1);
  }
  const specOffset = open + 1;

  if (name.startsWith("mcp__")) {
    const m = MCP_NAME.exec(name);
    if (!m) return { ok: false, message: `'${name}' is not a valid MCP tool name; write mcp__<server>__<tool> or mcp__<server>__*`, offset: nameOffset };
    if (specifier !== null) return { ok: false, message: `MCP tool rules take no '(...)'; write just '${name}'`, offset: open };
    const wide = m[2] === "*";
    return { ok: true, rule: { text, tool: wide ? `mcp__${m[1]}__` : name, mcpServerWide: wide, target: { kind: "any" } } };
  }
  if (name.startsWith("ext__")) {
    // Extension tools (src/agent/extensions) are named like tool-server tools and matched the same way.
    const m = EXTENSION_NAME.exec(name);
    if (!m) return { ok: false, message: `'${name}' is not a valid extension tool name; write ext__<extension>__<tool> or ext__<extension>__*`, offset: nameOffset };
    if (specifier !== null) return { ok: false, message: `extension tool rules take no '(...)'; write just '${name}'`, offset: open };
    const wide = m[2] === "*";
    return { ok: true, rule: { text, tool: wide ? `ext__${m[1]}__` : name, mcpServerWide: wide, target: { kind: "any" } } };
  }
  const claude = claudeCodeForm(name, specifier);
  if (claude) return { ok: false, message: `'${text.trim()}' is Claude Code's rule form; ours is '${claude}'`, offset: nameOffset };
  const kind = Object.hasOwn(traits, name) ? traits[name]!.permission : undefined;
  if (kind === "never") return { ok: false, message: `'${name}' never needs permission; rules cannot name it`, offset: nameOffset };
  if (!kind) return { ok: false, message: `unknown tool '${name}'${didYouMean(name, ruleTools(traits), "'")}; allowed: ${allowedText}`, offset: nameOffset };
  const base = { text, tool: name, mcpServerWide: false };
  if (specifier === null) return { ok: true, rule: { ...base, target: { kind: "any" } } };
  if (specifier.trim() === "") return { ok: false, message: `'${name}()' has an empty specifier; write '${name}' to match every call`, offset: specOffset };

  switch (kind) {
    case "name":
      return { ok: false, message: `'${name}' takes no specifier; write just '${name}'`, offset: open };
    case "path":
      return { ok: true, rule: { ...base, target: { kind: "path", pattern: specifier.trim() } } };
    case "domain": {
      const m = /^domain:(\*\.)?([A-Za-z0-9.-]+)$/.exec(specifier.trim());
      if (!m || m[2]!.startsWith(".") || m[2]!.endsWith(".") || m[2]!.includes(".."))
        return { ok: false, message: `'${specifier}' is not a domain specifier; write domain:example.com or domain:*.example.com`, offset: specOffset };
      return { ok: true, rule: { ...base, target: { kind: "domain", host: m[2]!.toLowerCase(), subdomains: m[1] !== undefined } } };
    }
    case "shell": {
      const trimmed = specifier.trim();
      const prefix = trimmed.endsWith(":*");
      const command = prefix ? trimmed.slice(0, -2) : trimmed;
      const split = splitShellCommand(command);
      if (!split.ok) return { ok: false, message: `the command cannot be read: ${split.reason}`, offset: specOffset };
      const [only, ...more] = split.commands;
      if (!only || more.length > 0)
        return { ok: false, message: "a shell rule names one simple command (no &&, ||, ;, |, subshells or substitutions); write one rule per command", offset: specOffset };
      if (only.words.some((w) => w.dynamic))
        return { ok: false, message: "a shell rule cannot contain $variables, $( ) or backticks", offset: specOffset };
      return { ok: true, rule: { ...base, target: { kind: "shell", words: only.words.map((w) => w.text), prefix } } };
    }
  }
}
