// Regenerates src/util/secret-rules.json from gitleaks' default rule set (config/gitleaks.toml, MIT licensed,
// https://github.com/gitleaks/gitleaks): each rule's regex rewritten from Go's RE2 syntax to JavaScript, its
// keywords, entropy threshold, secret group and allowlists. Rules that only match file paths are left out.
//
//   bun scripts/secret-rules.ts --toml path/to/gitleaks.toml --commit <sha> [--out src/util/secret-rules.json]
import { readFileSync, writeFileSync } from "node:fs";
import { parse } from "smol-toml";

interface TomlAllowlist {
  condition?: string;
  regexTarget?: string;
  regexes?: string[];
  stopwords?: string[];
  paths?: string[];
  commits?: string[];
}
interface TomlRule {
  id: string;
  regex?: string;
  secretGroup?: number;
  entropy?: number;
  keywords?: string[];
  allowlists?: TomlAllowlist[];
}

const args = process.argv.slice(2);
const opt = (name: string) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? undefined : args[at + 1];
};
const tomlPath = opt("toml");
const commit = opt("commit");
const out = opt("out") ?? "src/util/secret-rules.json";
if (!tomlPath || !commit) {
  console.error("usage: bun scripts/secret-rules.ts --toml FILE --commit SHA [--out FILE]");
  process.exit(2);
}

/** Index of the `)` closing the group open at `from` (or the pattern's end), and the top-level `|` before it. */
function groupExtent(pattern: string, from: number): { end: number; bars: number[] } {
  let depth = 0;
  let inClass = false;
  const bars: number[] = [];
  for (let i = from; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") i++;
    else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")") {
      if (depth === 0) return { end: i, bars };
      depth--;
    } else if (c === "|" && depth === 0) bars.push(i);
  }
  return { end: pattern.length, bars };
}

/**
 * Go RE2 -> JavaScript: a leading (?i) becomes the i flag; a later one (which in RE2 lasts to the end of its
 * group, across alternatives) becomes a (?i:...) group around the rest of its alternative and each later one;
 * \z is $; POSIX classes spelled out; (?P<name> is (?<name>.
 */
export function toJs(pattern: string): { source: string; flags: string } {
  let source = pattern;
  let flags = "";
  if (source.startsWith("(?i)")) {
    flags = "i";
    source = source.slice(4);
  }
  for (let at = source.indexOf("(?i)"); at !== -1; at = source.indexOf("(?i)")) {
    const rest = at + 4;
    const { end, bars } = groupExtent(source, rest);
    const pieces: string[] = [];
    let start = rest;
    for (const bar of [...bars, end]) {
      pieces.push(`(?i:${source.slice(start, bar)})`);
      start = bar + 1;
    }
    source = source.slice(0, at) + pieces.join("|") + source.slice(end);
  }
  source = source.replaceAll("\\z", "$").replaceAll("[[:alnum:]]", "[A-Za-z0-9]").replace(/\(\?P</g, "(?<");
  new RegExp(source, flags); // throws on anything left untranslated
  return { source, flags };
}

function allowlist(a: TomlAllowlist) {
  // Paths and commits mean nothing for text that is not a file of a repository.
  if ((a.paths?.length || a.commits?.length) && a.condition === "AND") return null;
  const regexes = (a.regexes ?? []).map(toJs);
  const stopwords = (a.stopwords ?? []).map((w) => w.toLowerCase());
  if (regexes.length === 0 && stopwords.length === 0) return null;
  return { and: a.condition === "AND" || undefined, target: a.regexTarget && a.regexTarget !== "secret" ? a.regexTarget : undefined, regexes, stopwords };
}

const config = parse(readFileSync(tomlPath, "utf8")) as unknown as { allowlist?: TomlAllowlist; rules: TomlRule[] };
const rules = [];
const skipped: string[] = [];
for (const rule of config.rules) {
  if (!rule.regex) continue;
  try {
    const { source, flags } = toJs(rule.regex);
    const allow = (rule.allowlists ?? []).map(allowlist).filter((a) => a !== null);
    rules.push({ id: rule.id, source, flags, keywords: (rule.keywords ?? []).map((k) => k.toLowerCase()), entropy: rule.entropy, group: rule.secretGroup, allow: allow.length ? allow : undefined });
  } catch (error) {
    skipped.push(`${rule.id}: ${(error as Error).message}`);
  }
}
const global = config.allowlist ? allowlist(config.allowlist) : null;
writeFileSync(
  out,
  `${JSON.stringify({ source: "gitleaks config/gitleaks.toml (MIT License, Copyright (c) 2019 Zachary Rice), https://github.com/gitleaks/gitleaks", commit, global, rules })}\n`,
);
console.log(`${rules.length} rules written to ${out}${skipped.length ? `; skipped: ${skipped.join("; ")}` : ""}`);
