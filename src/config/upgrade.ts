// Config versions: files without `version` (or with an older one) are upgraded in memory on load;
// `agent config upgrade` writes `version: 3` back into the file, keeping comments and layout.
import { isMap, parseDocument, Scalar } from "yaml";
import { checkValue } from "./check.ts";
import { AppConfigSchema, CURRENT_CONFIG_VERSION } from "./schema.ts";
import type { ConfigFormat } from "./parse.ts";
import type { ProblemList } from "./problems.ts";

/**
 * One step per version: takes a layer written for version N and returns it as version N+1.
 * Versions 0-2 used the same field layout as version 3 for every field this agent knows, so the
 * steps carry the document over unchanged; a future version adds a real transformation here.
 */
const STEPS: Record<number, (doc: Record<string, unknown>) => Record<string, unknown>> = {
  0: (doc) => doc,
  1: (doc) => doc,
  2: (doc) => doc,
};

export interface UpgradeResult {
  doc: Record<string, unknown>;
  /** The version the file was written with; undefined when it had no `version` key. */
  from: number | undefined;
  upgraded: boolean;
}

/** Brings one layer to the current version. A version from the future is an error, not a guess. */
export function upgradeLayer(doc: Record<string, unknown>, out: ProblemList): UpgradeResult {
  const raw = doc.version;
  if (raw === undefined || raw === null) {
    return { doc: runSteps(doc, 0), from: undefined, upgraded: true };
  }
  if (typeof raw !== "number" || !Number.isInteger(raw) || raw < 0 || raw > 255) {
    checkValue(AppConfigSchema.properties.version, raw, ["version"], out);
    return { doc, from: undefined, upgraded: false };
  }
  if (raw > CURRENT_CONFIG_VERSION) {
    out.error(["version"], `this config was written by a newer agent (version ${raw}); this agent reads versions up to ${CURRENT_CONFIG_VERSION}. Update agent to use it`, {
      allowed: `0..${CURRENT_CONFIG_VERSION}`,
    });
    return { doc, from: raw, upgraded: false };
  }
  if (raw === CURRENT_CONFIG_VERSION) return { doc, from: raw, upgraded: false };
  return { doc: runSteps(doc, raw), from: raw, upgraded: true };
}

function runSteps(doc: Record<string, unknown>, from: number): Record<string, unknown> {
  let current = doc;
  for (let v = from; v < CURRENT_CONFIG_VERSION; v++) current = STEPS[v]!(current);
  const { version: _, ...rest } = current;
  return { version: CURRENT_CONFIG_VERSION, ...rest };
}

/**
 * Returns the file text with `version` set to the current version. YAML and JSON are located through
 * the yaml Document API and edited in place by byte range, so comments, spacing and key order stay
 * exactly as written.
 */
export function writeVersion(text: string, format: ConfigFormat): string {
  const v = CURRENT_CONFIG_VERSION;
  if (format === "yaml" || format === "json") {
    const doc = parseDocument(text);
    const contents = doc.contents;
    if (contents && isMap(contents)) {
      const pair = contents.items.find((p) => (p.key as Scalar | null)?.value === "version");
      const range = (pair?.value as Scalar | undefined)?.range;
      if (range) return `${text.slice(0, range[0])}${v}${text.slice(range[1])}`;
    }
    if (format === "yaml") {
      const start = /^(%.*\n)*---[^\n]*\n/.exec(text)?.[0].length ?? 0;
      const flow = contents && isMap(contents) && contents.flow;
      if (flow) {
        const open = text.indexOf("{", start);
        const empty = /^\s*}/.test(text.slice(open + 1));
        return `${text.slice(0, open + 1)} version: ${v}${empty ? " " : ","}${text.slice(open + 1)}`;
      }
      return `${text.slice(0, start)}version: ${v}\n${text.slice(start)}`;
    }
    const open = text.indexOf("{");
    const rest = text.slice(open + 1);
    const indent = /\n([ \t]+)\S/.exec(rest)?.[1];
    const empty = /^\s*}/.test(rest);
    const insert = indent !== undefined ? `\n${indent}"version": ${v}${empty ? "" : ","}` : ` "version": ${v}${empty ? " " : ","}`;
    return `${text.slice(0, open + 1)}${insert}${rest}`;
  }
  const lines = text.split("\n");
  const firstTable = lines.findIndex((l) => /^\s*\[/.test(l));
  const top = firstTable === -1 ? lines.length : firstTable;
  for (let i = 0; i < top; i++) {
    if (/^\s*version\s*=/.test(lines[i]!)) {
      lines[i] = lines[i]!.replace(/=\s*[^#]*?(\s*(#.*)?)$/, `= ${v}$1`);
      return lines.join("\n");
    }
  }
  let insertAt = 0;
  while (insertAt < top && /^\s*#/.test(lines[insertAt]!)) insertAt++;
  lines.splice(insertAt, 0, `version = ${v}`);
  return lines.join("\n");
}
