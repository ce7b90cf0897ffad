// Checks a registered configuration's content with the app config's own parser and schema check (src/config):
// the declared format must parse, the top level must be a map, the version must be readable and every
// value must fit the app config schema. Substitutions (`${VAR}`, `$(cmd)`) are not expanded here: the
// daemon expands them when it loads the file, and the gateway never runs a command for a request.
import { checkValue } from "../../config/check.ts";
import { normalizeLayer } from "../../config/normalize.ts";
import { isParseFailure, parseConfigText } from "../../config/parse.ts";
import { type Problem, ProblemList } from "../../config/problems.ts";
import { AppConfigSchema, CURRENT_CONFIG_VERSION } from "../../config/schema.ts";
import { upgradeLayer } from "../../config/upgrade.ts";

export type RegistryFormat = "yaml" | "toml";

/** What a client gets back for each problem: where, what, and what is allowed. */
export interface ContentProblem {
  path: string;
  message: string;
  allowed?: string;
  line?: number;
  column?: number;
}

/** The errors of `text` as a `format` app config; empty when it is valid. Warnings do not block. */
export function checkConfigContent(text: string, format: RegistryFormat): ContentProblem[] {
  const file = `config.${format}`;
  const parsed = parseConfigText(file, text.replace(/^\uFEFF/, ""), format);
  if (isParseFailure(parsed)) return [{ path: "(root)", message: parsed.message, line: parsed.position?.line, column: parsed.position?.column }];
  const data = parsed.data;
  if (data !== null && data !== undefined && (typeof data !== "object" || Array.isArray(data) || data instanceof Date)) {
    return [{ path: "(root)", message: "the top level of a config must be a map of keys" }];
  }
  const out = new ProblemList();
  const safe = normalizeLayer((data ?? {}) as Record<string, unknown>, out);
  if (safe) {
    const upgraded = upgradeLayer(safe, out);
    const doc = { ...upgraded.doc, version: CURRENT_CONFIG_VERSION };
    if (!out.errors.length) checkValue(AppConfigSchema, doc, [], out);
  }
  return out.errors.map((p: Problem) => {
    const at = p.parts ? parsed.locate(p.parts) : undefined;
    return { path: p.path, message: p.message, ...(p.allowed ? { allowed: p.allowed } : {}), ...(at ? { line: at.line, column: at.column } : {}) };
  });
}
