// The rule files: `permissions.yaml` in the global config dir and in the project's `.agent/`, each a
// map of `allow`, `ask` and `deny` lists of rules. Every problem is reported with file:line:column and
// what is allowed; "allow always" for the project appends to the file in place, keeping its comments.
import { statSync } from "node:fs";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from "yaml";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { MAX_CONFIG_FILE_BYTES, readBoundedFile } from "../util/bounded-read.ts";
import { parseRule, type Rule, type RuleEffect } from "./rules.ts";

export const RULE_FILE_NAME = "permissions.yaml";
const EFFECTS: readonly RuleEffect[] = ["allow", "ask", "deny"];

export interface RuleProblem {
  file: string;
  line: number;
  column: number;
  message: string;
}

/** A rule file that cannot be used; the message lists every problem as `file:line:column: message`. */
export class PermissionRuleError extends Error {
  constructor(readonly problems: RuleProblem[]) {
    super(problems.map((p) => `${p.file}:${p.line}:${p.column}: ${p.message}`).join("\n"));
    this.name = "PermissionRuleError";
  }
}

/** The rule file's text, or null when there is none; a project's file is bounded like its config. */
function readText(path: string): string | null {
  const read = readBoundedFile(path, MAX_CONFIG_FILE_BYTES);
  if ("bytes" in read) return new TextDecoder().decode(read.bytes);
  if (read.problem === "missing") return null;
  const message = {
    not_regular: "the rule file is not a regular file; it was not read",
    too_large: `the rule file is ${read.size} bytes, over the limit of ${MAX_CONFIG_FILE_BYTES} bytes (4 MiB); it was not read`,
    unreadable: `cannot read the rule file (${read.code})`,
  }[read.problem];
  throw new PermissionRuleError([{ file: path, line: 1, column: 1, message }]);
}

function parse(path: string, text: string): { doc: Document; lines: LineCounter; problems: RuleProblem[] } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const problems = doc.errors.map((e) => ({ file: path, line: e.linePos?.[0].line ?? 1, column: e.linePos?.[0].col ?? 1, message: e.message.split("\n")[0]! }));
  return { doc, lines, problems };
}

/** Reads one rule file; a missing file holds no rules. Throws PermissionRuleError listing every problem. */
export function readRuleFile(path: string, shownAs: string = path): Rule[] {
  const text = readText(path);
  if (text === null) return [];
  const { doc, lines, problems } = parse(shownAs, text);
  const rules: Rule[] = [];
  const at = (node: Node | null | undefined, extra = 0) => {
    const pos = lines.linePos((node?.range?.[0] ?? 0) + extra);
    return { line: pos.line, column: pos.col };
  };
  const problem = (node: Node | null | undefined, message: string, extra = 0) => problems.push({ file: shownAs, ...at(node, extra), message });
  const root = doc.contents;
  if (problems.length === 0 && root !== null && !isMap(root)) problem(root, "the rule file must be a map with the lists allow, ask and deny");
  if (problems.length === 0 && isMap(root)) {
    for (const pair of root.items) {
      const key = pair.key as Node;
      const name = isScalar(key) ? String(key.value) : "";
      if (!EFFECTS.includes(name as RuleEffect)) {
        problem(key, `unknown key '${name}'; allowed: allow, ask, deny`);
        continue;
      }
      const value = pair.value as Node | null;
      if (value === null || (isScalar(value) && value.value === null)) continue;
      if (!isSeq(value)) {
        problem(value, `'${name}' must be a list of rules, e.g. - shell(git status)`);
        continue;
      }
      for (const item of value.items as Node[]) {
        if (!isScalar(item) || typeof item.value !== "string") {
          problem(item, `a rule must be a string such as shell(git status), edit(src/**) or mcp__server__tool`);
          continue;
        }
        const parsed = parseRule(item.value);
        const quoted = item.type === "QUOTE_DOUBLE" || item.type === "QUOTE_SINGLE" ? 1 : 0;
        if (!parsed.ok) {
          problem(item, `rule '${item.value}': ${parsed.message}`, quoted + parsed.offset);
          continue;
        }
        const pos = at(item);
        rules.push({ ...parsed.rule, effect: name as RuleEffect, origin: `${shownAs}:${pos.line}:${pos.column}` });
      }
    }
  }
  if (problems.length > 0) throw new PermissionRuleError(problems);
  return rules;
}

const HEADER = "# Permission rules (docs/permissions.md): allow, ask and deny lists; deny beats ask beats allow.\n";

/**
 * Adds `rule` to the `allow` list of the file (created when missing), keeping comments and layout;
 * the write is atomic. Does nothing when the rule is already there.
 */
export function appendAllowRule(path: string, rule: string): void {
  const text = readText(path) ?? "";
  const { doc, problems } = parse(path, text);
  if (problems.length > 0) throw new PermissionRuleError(problems);
  if (doc.contents !== null && !isMap(doc.contents))
    throw new PermissionRuleError([{ file: path, line: 1, column: 1, message: "the rule file must be a map with the lists allow, ask and deny" }]);
  const allow = doc.get("allow", true) as Node | undefined | null;
  if (isSeq(allow)) {
    if (allow.items.some((i) => isScalar(i) && i.value === rule)) return;
    allow.add(doc.createNode(rule));
  } else if (allow === undefined || allow === null || (isScalar(allow) && allow.value === null)) {
    doc.set("allow", doc.createNode([rule]));
  } else {
    throw new PermissionRuleError([{ file: path, line: 1, column: 1, message: "'allow' must be a list of rules" }]);
  }
  let mode = 0o644;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    // A new file.
  }
  writeFileAtomic(path, (text.trim() === "" ? HEADER : "") + doc.toString(), mode);
}

/** Every problem of the global and the project rule file (`agent config validate`); a missing file has none. */
export function ruleFileProblems(files: readonly { path: string; shownAs: string }[]): RuleProblem[] {
  const problems: RuleProblem[] = [];
  for (const file of files) {
    try {
      readRuleFile(file.path, file.shownAs);
    } catch (error) {
      if (!(error instanceof PermissionRuleError)) throw error;
      problems.push(...error.problems);
    }
  }
  return problems;
}
