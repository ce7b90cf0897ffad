// `.agentblock` files: a project owner's "keep out" for agents. A `.agentblock` file in a directory blocks
// the file tools from that directory's tree. An empty file (or one with only comments) blocks all of it;
// otherwise its lines are gitignore-style patterns, relative to that directory, naming what is blocked.
// read, write and edit refuse blocked paths; glob and grep leave them out of their results. A path is
// blocked as written and where it leads through symlinks: a link to a blocked file is blocked too.
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ignore, { type Ignore } from "ignore";
import { isInside, realish } from "./paths.ts";

export const AGENTBLOCK_FILE = ".agentblock";

/** null: no .agentblock in the directory; "all": the whole tree; else the patterns. */
type DirRule = null | "all" | Ignore;

function loadRule(dir: string): DirRule {
  let text: string;
  try {
    text = readFileSync(join(dir, AGENTBLOCK_FILE), "utf8");
  } catch {
    return null;
  }
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "" && !l.trimStart().startsWith("#"));
  return lines.length === 0 ? "all" : ignore().add(lines);
}

/**
 * Checks paths against the `.agentblock` files of their ancestor directories (up to the project root), as
 * written and at their real path. The answer names the `.agentblock` file under the root as given.
 * `real` is the path's real path when the caller already knows it (the file catalog does).
 * One checker caches directory lookups, so make one per tool call: a file added mid-session counts at once.
 */
export function createBlockChecker(projectRoot: string): (absolute: string, real?: string) => string | undefined {
  const root = resolve(projectRoot);
  const realRoot = realish(root);
  const lexical = treeChecker(root);
  const throughLinks = realRoot === root ? lexical : treeChecker(realRoot);
  return (absolute, real = realish(absolute)) => {
    const found = lexical(absolute);
    if (found || real === absolute) return found;
    const by = throughLinks(real);
    return by === undefined ? undefined : join(root, relative(realRoot, by));
  };
}

function treeChecker(projectRoot: string): (absolute: string) => string | undefined {
  const rules = new Map<string, DirRule>();
  const ruleOf = (dir: string): DirRule => {
    let rule = rules.get(dir);
    if (rule === undefined) {
      rule = loadRule(dir);
      rules.set(dir, rule);
    }
    return rule;
  };
  return (absolute) => {
    if (!isInside(projectRoot, absolute)) return undefined;
    for (let dir = dirname(absolute); ; dir = dirname(dir)) {
      const rule = ruleOf(dir);
      if (rule === "all") return join(dir, AGENTBLOCK_FILE);
      if (rule) {
        const rel = relative(dir, absolute).split(sep).join("/");
        if (rel && rule.ignores(rel)) return join(dir, AGENTBLOCK_FILE);
      }
      if (dir === projectRoot || dirname(dir) === dir || !isInside(projectRoot, dir)) return undefined;
    }
  };
}

export function blockedMessage(shown: string, by: string, projectRoot: string): string {
  const where = relative(projectRoot, by).split(sep).join("/");
  return `\`${shown}\` is blocked by \`${where}\`: the project keeps agents out of it. Do not try to read or change it another way; ask the user if you need it.`;
}
