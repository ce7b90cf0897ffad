// Which hooks a tool call runs: a matcher names tools as Claude Code's does (a plain name or names joined
// by `|` match whole; anything else is a regular expression searched in the name; `*` or empty matches
// every tool), and it may name our tools or Claude Code's for them.
import { TOOL_ALIASES } from "../../config/builtin-names.ts";

/** Claude Code's tool names for ours, so a `.claude/settings.json` matcher works unchanged. */
export const CLAUDE_TOOL_NAMES: Readonly<Record<string, readonly string[]>> = {
  shell: ["Bash"],
  read: ["Read"],
  write: ["Write"],
  edit: ["Edit", "MultiEdit"],
  glob: ["Glob"],
  grep: ["Grep"],
  web_fetch: ["WebFetch"],
  web_search: ["WebSearch"],
  task: ["Task"],
};

/** Every name a call of `tool` answers to: its own, the tool it stands in for (apply_patch: edit), and Claude Code's. */
export function toolNames(tool: string): string[] {
  const alias = TOOL_ALIASES[tool];
  const own = alias ? [tool, alias] : [tool];
  return [...own, ...own.flatMap((n) => CLAUDE_TOOL_NAMES[n] ?? [])];
}

export type ToolMatcher = (tool: string) => boolean;

/** Compiles a matcher; throws with a message naming what is wrong when it is not a valid expression. */
export function compileMatcher(matcher: string | undefined): ToolMatcher {
  const m = (matcher ?? "").trim();
  if (m === "" || m === "*") return () => true;
  if (/^[A-Za-z0-9_|-]+$/.test(m)) {
    const names = new Set(m.split("|").filter(Boolean));
    return (tool) => toolNames(tool).some((n) => names.has(n));
  }
  let re: RegExp;
  try {
    re = new RegExp(m);
  } catch (error) {
    throw new Error(`the matcher '${m}' is not a valid regular expression (${(error as Error).message})`);
  }
  return (tool) => toolNames(tool).some((n) => re.test(n));
}
