// The captured requests of each matrix cell, kept as fixtures (test/e2e/fixtures/provider-matrix/<cell>.json)
// so that any change to what a vendor receives shows as a diff to review. Normalized first: no ports, temp
// paths, session or call ids, dates, versions or keys; the system prompt and the tools' descriptions are
// replaced by placeholders (their wording has its own tests; the fixtures are about the request's shape).
// UPDATE_FIXTURES=1 rewrites them.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CapturedRequest } from "../../fakes/provider-fake.ts";

export const FIXTURE_DIR = join(import.meta.dir, "..", "fixtures", "provider-matrix");
export const UPDATE = process.env.UPDATE_FIXTURES === "1";

/** Headers that vary by run or by the HTTP client, not by what agent decides to send. */
const VOLATILE_HEADERS = new Set(["host", "content-length", "connection", "accept-encoding", "keep-alive"]);

export interface Replacements {
  /** Literal strings -> their placeholder (temp dirs, the key, the fake's origin). */
  literals: [string, string][];
}

const PATTERNS: [RegExp, string][] = [
  [/\bses_[0-9A-Za-z]+/g, "<session>"],
  // Ids of agent's own records (time-sortable, 26 characters after the prefix); the fake's call ids are fixed.
  [/\b(msg|prt|op|turn|req)_[0-9a-z]{20,}/gi, "<$1 id>"],
  [/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, "<timestamp>"],
  [/127\.0\.0\.1:\d+/g, "127.0.0.1:<port>"],
];

function normalizeString(s: string, r: Replacements): string {
  let out = s;
  for (const [literal, placeholder] of r.literals) if (literal) out = out.split(literal).join(placeholder);
  for (const [re, placeholder] of PATTERNS) out = out.replace(re, placeholder);
  return out;
}

/** Placeholders for the long texts whose wording is not the fixture's business. */
function normalizeBody(value: unknown, r: Replacements, path: string[]): unknown {
  if (typeof value === "string") {
    const key = path[path.length - 1];
    if (key === "description" && path.includes("tools")) return "<tool description>";
    if (key === "instructions") return "<system prompt>";
    return normalizeString(value, r);
  }
  if (Array.isArray(value)) return value.map((v, i) => normalizeBody(v, r, [...path, String(i)]));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = normalizeBody(v, r, [...path, k]);
    return out;
  }
  return value;
}

/** The system prompt, wherever the dialect carries it: Messages `system`, Chat Completions' first system/developer message. */
function withoutSystemPrompt(body: any): any {
  if (!body || typeof body !== "object") return body;
  const out = structuredClone(body);
  if (Array.isArray(out.system)) out.system = out.system.map((b: any) => (b?.type === "text" ? { ...b, text: "<system prompt>" } : b));
  else if (typeof out.system === "string") out.system = "<system prompt>";
  for (const list of [out.messages, out.input]) {
    if (!Array.isArray(list)) continue;
    for (const m of list) {
      if (m?.role !== "system" && m?.role !== "developer") continue;
      if (typeof m.content === "string") m.content = "<system prompt>";
      else if (Array.isArray(m.content)) m.content = m.content.map((p: any) => (typeof p?.text === "string" ? { ...p, text: "<system prompt>" } : p));
    }
  }
  return out;
}

/**
 * The conversation of a request after the first, written as what it adds: the items equal to the
 * previous request's are one marker (a client that rewrote history would show the rewritten items).
 */
function sincePrevious(list: unknown[], previous: unknown[] | undefined): unknown[] {
  if (!previous) return list;
  let same = 0;
  while (same < list.length && same < previous.length && JSON.stringify(list[same]) === JSON.stringify(previous[same])) same++;
  return same === 0 ? list : [`<the first ${same} as in the previous request>`, ...list.slice(same)];
}

export function normalizeRequests(requests: CapturedRequest[], r: Replacements): unknown[] {
  const bodies = requests.map((req) => normalizeBody(withoutSystemPrompt(req.body), r, []) as any);
  return requests.map((req, i) => {
    const headers: Record<string, string> = {};
    for (const name of Object.keys(req.headers).sort()) {
      if (VOLATILE_HEADERS.has(name)) continue;
      headers[name] = name === "user-agent" ? req.headers[name]!.replace(/\d+\.\d+\.\d+[^\s)]*/g, "<version>") : normalizeString(req.headers[name]!, r);
    }
    const body = bodies[i];
    if (i === 0 || !body || typeof body !== "object") return { method: req.method, path: req.path, headers, body };
    const previous = bodies[i - 1];
    const out = { ...body };
    // Every request of a cell carries the same tools: written out once, in the first.
    if (out.tools && JSON.stringify(out.tools) === JSON.stringify(bodies[0]?.tools)) out.tools = "<as in the first request>";
    for (const field of ["messages", "input"]) if (Array.isArray(out[field])) out[field] = sincePrevious(out[field], previous?.[field]);
    return { method: req.method, path: req.path, headers, body: out };
  });
}

export function fixturePath(cellId: string): string {
  return join(FIXTURE_DIR, `${cellId}.json`);
}

/** The tools a provider's requests carry, for one edit format: kept once per provider, beside the cells. */
export function toolsFixturePath(provider: string, editFormat: string): string {
  return join(FIXTURE_DIR, "tools", `${provider}-${editFormat}.json`);
}

/** One tool per line: a schema change is a one-line diff. */
function formatTools(tools: unknown[]): string {
  return `[\n${tools.map((t) => `  ${JSON.stringify(t)}`).join(",\n")}\n]\n`;
}

export interface CellFixture {
  requests: unknown[];
  /** The first request's tools, moved out of `requests` (null when it sent none). */
  tools: unknown[] | null;
}

/** Moves the first request's tool list out, leaving the name of the file that keeps it. */
export function splitTools(requests: unknown[], provider: string, editFormat: string): CellFixture {
  const first = requests[0] as { body?: { tools?: unknown } } | undefined;
  const tools = first?.body?.tools;
  if (!Array.isArray(tools)) return { requests, tools: null };
  const name = `tools/${provider}-${editFormat}.json`;
  return { requests: [{ ...first, body: { ...first!.body, tools: `<${name}>` } }, ...requests.slice(1)], tools };
}

/** The stored fixture of a cell (null parts when there is none yet). */
export function readFixture(cellId: string, provider: string, editFormat: string): { requests: unknown[] | null; tools: unknown[] | null } {
  const path = fixturePath(cellId);
  const tools = toolsFixturePath(provider, editFormat);
  return {
    requests: existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as unknown[]) : null,
    tools: existsSync(tools) ? (JSON.parse(readFileSync(tools, "utf8")) as unknown[]) : null,
  };
}

export function writeFixture(cellId: string, provider: string, editFormat: string, fixture: CellFixture): void {
  mkdirSync(join(FIXTURE_DIR, "tools"), { recursive: true });
  writeFileSync(fixturePath(cellId), `${JSON.stringify(fixture.requests, null, 2)}\n`);
  if (fixture.tools) writeFileSync(toolsFixturePath(provider, editFormat), formatTools(fixture.tools));
}

/** Cell ids of the fixtures on disk, and the tool files (`<provider>-<edit format>`). */
export function fixtureIds(): { cells: string[]; tools: string[] } {
  const list = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".json")).map((f) => f.slice(0, -".json".length)).sort() : []);
  return { cells: list(FIXTURE_DIR), tools: list(join(FIXTURE_DIR, "tools")) };
}
