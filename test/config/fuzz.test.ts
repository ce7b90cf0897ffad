// Robustness of the config loader: thousands of random mutants of the full example (type changes,
// deleted keys, nulls, out-of-range numbers, weird keys and strings, 1 MB strings, 10k-level nesting,
// invalid UTF-8, syntax damage) written as YAML, JSON or TOML. loadConfig must never throw, every
// problem must be well formed, and whenever it says ok the merged config must pass ajv.
//
// Reproduce a failure with FUZZ_SEED=<seed printed in the failure> bun test test/config/fuzz.test.ts;
// FUZZ_SCALE=4 runs four times as many mutants.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { stringify as stringifyToml } from "smol-toml";
import { type LoadedConfig, loadConfig } from "../../src/config/load.ts";
import { appConfigJsonSchema } from "../../src/config/schema.ts";
import { FULL_CONFIG_PATH, FULL_CONFIG_TEXT, type FullProject, makeFullProject } from "./fixtures/full-project.ts";

type Json = Record<string, any>;
type Format = "yaml" | "json" | "toml";
const FORMATS: Format[] = ["yaml", "json", "toml"];

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
// Sized for about 20 s on two cores; a load of the whole example costs ~12 ms, so half of the
// structural mutants start from a few top-level blocks of it instead.
const COUNTS = {
  structural: 1200,
  syntax: 500,
  invalidUtf8: 150,
  projectLayer: 80,
  hugeString: 5,
  hugeKey: 1,
  deepNesting: 3,
};

/**
 * Bugs already reported to the owner of src/config. A mutant that fails only with one of these is
 * listed on the console but does not fail the run; delete the entry once the bug is fixed.
 */
const KNOWN_BUGS: { name: string; match: RegExp }[] = [];

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
  };
}
type Rng = ReturnType<typeof prng>;

const WEIRD_STRINGS = [
  "", " ", "\t", "\n", "\r\n", "${UNSET_FUZZ_VAR}", "$(echo fuzz)", "${AGENT_TEST_KEY:-echo fallback}", "$$", "${", "$", "$(",
  "${AGENT_TEST_KEY}", "\u0000", "a\u0000b", "../../../etc/passwd", "/etc/passwd", "agent://facets/nope", "agent://", "mcp__",
  "mcp__x__y", "🙂".repeat(300), "\uD800", "a".repeat(513), "é".repeat(300), "http://", "https://[::1]:99999/", "ftp://x.example",
  "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----", "true", "null", "~", "0x10", "1e999", "'", '"', "key: value",
  "# comment", "[[a]]", "{a = 1}", "my-large(high)", "my-large(", "(x)", "constructor", "__proto__", "toString", "my-mini",
  "execute", "plan", "bash", "zsh", "stdio", "http", "oauth", "catalog", "a_messages", "test", "file_changed", "exit_tool",
];
const WEIRD_KEYS = [
  "__proto__", "constructor", "toString", "valueOf", "hasOwnProperty", "", " ", "a.b", "a/b", "a b", "[x]", "models", "type",
  "transport", "💥", "x".repeat(300), "version", "key", "0", "-1",
];
const WEIRD_NUMBERS = [
  -1, -0.5, 0, 0.5, 1, 1.5, 255, 256, 65536, 2 ** 31, 2 ** 32, 2 ** 32 - 1, 2 ** 53, 2 ** 53 + 2, 2 ** 64, 1e308, -1e308,
  Number.MIN_VALUE, 0.0001, 1.0000001, NaN, Infinity, -Infinity,
];

function randomScalar(rng: Rng): unknown {
  switch (rng.int(5)) {
    case 0: return rng.pick(WEIRD_STRINGS);
    case 1: return rng.pick(WEIRD_NUMBERS);
    case 2: return rng.chance(0.5);
    case 3: return null;
    default: return rng.int(1000);
  }
}

function randomValue(rng: Rng, depth = 0): unknown {
  const roll = rng.int(depth > 2 ? 5 : 8);
  if (roll < 5) return randomScalar(rng);
  if (roll === 5) return Array.from({ length: rng.int(4) }, () => randomValue(rng, depth + 1));
  if (roll === 6) return [1, "a", null, true, {}, []];
  return Object.fromEntries(Array.from({ length: rng.int(4) }, () => [rng.pick(WEIRD_KEYS), randomValue(rng, depth + 1)]));
}

const isContainer = (v: unknown): v is Json | unknown[] => typeof v === "object" && v !== null;

/** A random (container, key) inside the document, reached by a random walk from the root. */
function randomSlot(rng: Rng, root: Json): { parent: Json | unknown[]; key: string | number } | undefined {
  let node: Json | unknown[] = root;
  for (let depth = 0; depth < 12; depth++) {
    // Indices without node.map: an array may carry an own `constructor` key, which breaks species lookup.
    const keys: (string | number)[] = Array.isArray(node) ? Array.from({ length: node.length }, (_, i) => i) : Object.keys(node);
    if (keys.length === 0) return undefined;
    const key = rng.pick(keys);
    const child: unknown = (node as Json)[key as string];
    if (!isContainer(child) || rng.chance(0.3)) return { parent: node, key };
    node = child;
  }
  return undefined;
}

const DISCRIMINATORS = ["type", "transport"];

function mutateTree(rng: Rng, doc: Json, log: string[]): void {
  const slot = randomSlot(rng, doc);
  if (!slot) return;
  const { parent, key } = slot;
  const target = parent as Json;
  const op = rng.int(11);
  switch (op) {
    case 0:
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete target[key];
      log.push(`delete ${key}`);
      return;
    case 1:
      target[key] = null;
      log.push(`null ${key}`);
      return;
    case 2:
      target[key] = randomValue(rng);
      log.push(`retype ${key}`);
      return;
    case 3:
      target[key] = rng.pick(WEIRD_NUMBERS);
      log.push(`number ${key}=${target[key]}`);
      return;
    case 4:
      target[key] = rng.pick(WEIRD_STRINGS);
      log.push(`string ${key}`);
      return;
    case 5: {
      const holder = isContainer(target[key]) && !Array.isArray(target[key]) ? (target[key] as Json) : target;
      // A named key on an array is not serialized, and `constructor` on one breaks splice and map.
      if (Array.isArray(holder)) return;
      const weird = rng.pick(WEIRD_KEYS);
      Object.defineProperty(holder, weird, { value: randomValue(rng), enumerable: true, writable: true, configurable: true });
      log.push(`add key ${JSON.stringify(weird.slice(0, 20))}`);
      return;
    }
    case 6:
      target[key] = [target[key]];
      log.push(`wrap in list ${key}`);
      return;
    case 7:
      target[key] = rng.chance(0.5) ? {} : [];
      log.push(`empty ${key}`);
      return;
    case 8: {
      const other = randomSlot(rng, doc);
      if (other) target[key] = structuredClone((other.parent as Json)[other.key]);
      log.push(`copy subtree into ${key}`);
      return;
    }
    case 9: {
      const holder = isContainer(target[key]) && !Array.isArray(target[key]) ? (target[key] as Json) : target;
      const disc = DISCRIMINATORS.find((d) => d in holder) ?? rng.pick(DISCRIMINATORS);
      holder[disc] = rng.pick(WEIRD_STRINGS);
      log.push(`discriminator ${disc}`);
      return;
    }
    default: {
      const value = target[key];
      if (typeof value === "string") target[key] = `${value}${rng.pick(WEIRD_STRINGS)}`;
      else if (typeof value === "number") target[key] = -value - 1;
      // JSON, not String(): a mutant may hold keys such as `toString` that make String() throw.
      else target[key] = JSON.stringify(value) ?? "null";
      log.push(`tweak ${key}`);
    }
  }
}

/** Serializes in the requested format; TOML cannot hold null or NaN everywhere, so it may fall back. */
function serialize(doc: unknown, format: Format): { text: string; format: Format } {
  if (format === "toml") {
    try {
      return { text: stringifyToml(doc as Json), format };
    } catch {
      format = "yaml";
    }
  }
  if (format === "json") return { text: JSON.stringify(doc, null, 2), format };
  return { text: stringifyYaml(doc, { aliasDuplicateObjects: false }), format: "yaml" };
}

const SYNTAX_TOKENS: Record<Format, string[]> = {
  yaml: ["{", "}", "[", "]", ":", ": ", "- ", "\t", "\n  ", "&a ", "*a", "!!binary ", "? ", "|", ">", "'", '"', "%YAML 1.1\n", "---\n", "...", "<<: *x\n", "#"],
  json: ["{", "}", "[", "]", ",", ":", '"', "\\", "\\u12", "/*", "NaN", "1e", "-", "\n", "\u2028"],
  toml: ["[", "]", "[[", "]]", "=", '"', "'", '"""', "\n[models]\n", "\na = 1\na = 2\n", "1979-05-27T07:32:00Z", "inf", "0x", "{", "}", ".", "\n"],
};

function damageText(rng: Rng, text: string, format: Format, log: string[]): string {
  let out = text;
  const times = 1 + rng.int(3);
  for (let i = 0; i < times; i++) {
    const at = rng.int(out.length + 1);
    switch (rng.int(7)) {
      case 0:
        out = out.slice(0, at) + out.slice(at + 1 + rng.int(20));
        log.push(`cut at ${at}`);
        break;
      case 1:
        out = out.slice(0, at) + rng.pick(SYNTAX_TOKENS[format]) + out.slice(at);
        log.push(`insert token at ${at}`);
        break;
      case 2:
        out = out.slice(0, at);
        log.push(`truncate at ${at}`);
        break;
      case 3: {
        const lines = out.split("\n");
        const n = rng.int(lines.length);
        lines.splice(n, 0, lines[n] ?? "");
        out = lines.join("\n");
        log.push(`duplicate line ${n + 1}`);
        break;
      }
      case 4: {
        const lines = out.split("\n");
        const n = rng.int(lines.length);
        lines[n] = rng.chance(0.5) ? ` ${lines[n]}` : `\t${lines[n]}`;
        out = lines.join("\n");
        log.push(`indent line ${n + 1}`);
        break;
      }
      case 5:
        out = rng.chance(0.5) ? out.replaceAll("\n", "\r\n") : `\uFEFF${out}`;
        log.push("crlf or bom");
        break;
      default:
        out = out.slice(0, at) + String.fromCharCode(rng.int(0x250)) + out.slice(at + 1);
        log.push(`replace char at ${at}`);
    }
  }
  return out;
}

/** Byte sequences that are never valid UTF-8. */
const BAD_UTF8: number[][] = [[0xff], [0xfe], [0xc0, 0xaf], [0xc3], [0xc3, 0x28], [0x80], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]];

/** Fixed odd documents every run tries once. */
const ODD_FILES: { name: string; format: Format; text: string }[] = [
  { name: "empty yaml", format: "yaml", text: "" },
  { name: "empty toml", format: "toml", text: "" },
  { name: "empty json", format: "json", text: "" },
  { name: "whitespace", format: "yaml", text: "  \n\n\t\n" },
  { name: "yaml null", format: "yaml", text: "null\n" },
  { name: "json null", format: "json", text: "null" },
  { name: "top-level list", format: "yaml", text: "- a\n- b\n" },
  { name: "top-level json list", format: "json", text: "[1,2]" },
  { name: "top-level scalar", format: "json", text: "42" },
  { name: "top-level string", format: "yaml", text: "hello\n" },
  { name: "two yaml documents", format: "yaml", text: "version: 3\n---\nversion: 2\n" },
  { name: "alias bomb", format: "yaml", text: `a: &a ["x","x","x","x","x","x","x","x","x"]\n${Array.from({ length: 9 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9).fill(`*${String.fromCharCode(97 + i)}`).join(",")}]`).join("\n")}\nplugins: {x: *j}\n` },
  { name: "merge keys", format: "yaml", text: "base: &b {transport: stdio, command: x}\nmcp_servers:\n  s:\n    <<: *b\n    args: [1]\n" },
  { name: "yaml tags", format: "yaml", text: "tui: !!binary aGVsbG8=\nplugins: {s: !!set {a, b}, o: !!omap [{a: 1}], t: !custom x}\nproviders: !!omap [{p: {kind: {type: custom_b_compatible}, url: 'http://x.example'}}]\n" },
  { name: "yaml 1.1 scalars", format: "yaml", text: "%YAML 1.1\n---\nversion: 0o3\nconfig_command_substitution: yes\ndaemon: {max_tool_turns: 0x10, log_level: ~}\n" },
  { name: "complex keys", format: "yaml", text: "? [a, b]\n: 1\n? {x: 1}\n: 2\nmodels: {[1,2]: {class: full}}\n" },
  { name: "timestamps", format: "yaml", text: "version: 2001-12-14t21:59:43.10-05:00\ntui: {theme: 2002-12-14}\n" },
  { name: "duplicate json keys", format: "json", text: '{"version": 3, "version": 2, "tui": {"theme": "a", "theme": 1}}' },
  { name: "proto keys json", format: "json", text: '{"__proto__": {"version": 999}, "providers": {"__proto__": {"kind": {"type": "catalog", "name": "a"}}}, "models": {"constructor": {"context_window": 5}}}' },
  { name: "toml dates and inf", format: "toml", text: "version = 1979-05-27\n[daemon]\nmax_tool_turns = inf\nprovider_stream_idle_timeout_secs = nan\n[tui]\ntheme = 07:32:00\n" },
  { name: "toml array of tables", format: "toml", text: "[[providers]]\nkind = 1\n[[models.x]]\nclass = 'full'\n" },
  { name: "toml dotted conflict", format: "toml", text: "a.b = 1\n[a]\nb = 2\n" },
  { name: "nul bytes", format: "yaml", text: "version: 3\u0000\ntui: {theme: \"a\u0000b\"}\n" },
  { name: "lone surrogate escape", format: "json", text: '{"tui": {"theme": "\\ud800"}, "models": {"\\udfff": {"class": "full"}}}' },
  { name: "control characters", format: "yaml", text: "tui: {theme: \"\\x07\\x1b[31m\"}\n" },
];

const schema = appConfigJsonSchema();
const ajvCheck = new Ajv2020({ strict: true, allErrors: true }).compile(structuredClone(schema));

let project: FullProject;
let failDir: string;
let counter = 0;
const failures: string[] = [];
const known = new Map<string, string[]>();
let slowest = { ms: 0, what: "" };
const timeByKind = new Map<string, number>();

beforeAll(async () => {
  project = await makeFullProject();
  failDir = mkdtempSync(join(tmpdir(), "agent-fuzz-failures-"));
  mkdirSync(join(project.dir, "mutants"));
  const layered = join(project.dir, "layered");
  mkdirSync(join(layered, ".agent"), { recursive: true });
  for (const file of ["scripts/init.sh", "prompts/review.md", "prompts/helper.md", "certs/ca.pem"]) {
    mkdirSync(join(layered, file, ".."), { recursive: true });
    copyFileSync(join(project.dir, file), join(layered, file));
  }
});

afterAll(() => {
  project.cleanup();
  if (failures.length === 0) rmSync(failDir, { recursive: true, force: true });
});

function lineCount(bytes: Uint8Array | string): number {
  const text = typeof bytes === "string" ? bytes : Buffer.from(bytes).toString("latin1");
  let n = 1;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

/** Checks the invariants for one loaded mutant; returns what is wrong, if anything. */
function invariantProblems(loaded: LoadedConfig, files: Map<string, number>): string[] {
  const wrong: string[] = [];
  if (typeof loaded.ok !== "boolean") wrong.push(`ok is ${typeof loaded.ok}`);
  if (!Array.isArray(loaded.problems)) return [...wrong, "problems is not a list"];
  for (const p of loaded.problems) {
    const shown = JSON.stringify(p).slice(0, 300);
    if (p.severity !== "error" && p.severity !== "warning") wrong.push(`bad severity: ${shown}`);
    if (typeof p.path !== "string" || p.path.length === 0) wrong.push(`bad path: ${shown}`);
    if (typeof p.message !== "string" || p.message.trim().length === 0) wrong.push(`empty message: ${shown}`);
    if (p.allowed !== undefined && typeof p.allowed !== "string") wrong.push(`bad allowed: ${shown}`);
    if (p.line !== undefined) {
      const lines = p.file ? files.get(p.file) : undefined;
      if (!Number.isInteger(p.line) || p.line < 1) wrong.push(`bad line: ${shown}`);
      else if (lines !== undefined && p.line > lines + 1) wrong.push(`line ${p.line} past the end of a ${lines}-line file: ${shown}`);
      if (!Number.isInteger(p.column) || (p.column ?? 0) < 1) wrong.push(`bad column: ${shown}`);
    }
  }
  const errors = loaded.problems.filter((p) => p.severity === "error").length;
  if (loaded.ok !== (errors === 0)) wrong.push(`ok=${loaded.ok} with ${errors} errors`);
  if (loaded.ok && !ajvCheck(loaded.config)) {
    wrong.push(`ok but ajv rejects the merged config: ${JSON.stringify(ajvCheck.errors).slice(0, 600)}`);
  }
  return wrong;
}

interface Mutant {
  kind: string;
  format: Format;
  bytes: string | Uint8Array;
  /** Where it goes: the global layer (as --config) or the project layer over the intact full example. */
  layer: "global" | "project";
  log: string[];
  /** Extra check for this mutant, e.g. the reported offset of a bad byte. */
  expect?: (loaded: LoadedConfig) => string | undefined;
}

function runMutant(m: Mutant): void {
  const id = counter++;
  let file: string;
  let configFile: string;
  let cwd: string;
  if (m.layer === "global") {
    cwd = project.dir;
    file = join(project.dir, "mutants", `m${id % 8}.${m.format}`);
    configFile = file;
  } else {
    // A separate project whose .agent/config.<ext> is the mutant; the global layer is the full example.
    cwd = join(project.dir, "layered");
    const agentDir = join(cwd, ".agent");
    for (const ext of FORMATS) rmSync(join(agentDir, `config.${ext}`), { force: true });
    file = join(agentDir, `config.${m.format}`);
    configFile = FULL_CONFIG_PATH;
  }
  writeFileSync(file, m.bytes);
  const files = new Map([[file, lineCount(m.bytes)], [FULL_CONFIG_PATH, lineCount(FULL_CONFIG_TEXT)]]);
  const started = performance.now();
  let wrong: string[];
  try {
    const loaded = loadConfig({ cwd, env: project.env, configFile });
    wrong = invariantProblems(loaded, files);
    const extra = m.expect?.(loaded);
    if (extra) wrong.push(extra);
  } catch (error) {
    wrong = [`loadConfig threw: ${(error as Error)?.stack ?? String(error)}`.slice(0, 1500)];
  }
  const ms = performance.now() - started;
  const kind = m.kind.startsWith("odd") ? "odd" : m.kind;
  timeByKind.set(kind, (timeByKind.get(kind) ?? 0) + ms);
  if (ms > slowest.ms) slowest = { ms, what: `${m.kind} ${m.format} [${m.log.join("; ")}]` };
  const bug = wrong.length > 0 && wrong.every((w) => KNOWN_BUGS.some((b) => b.match.test(w)))
    ? KNOWN_BUGS.find((b) => wrong.every((w) => b.match.test(w)))
    : undefined;
  if (bug) {
    known.set(bug.name, [...(known.get(bug.name) ?? []), `#${id} ${m.kind} ${m.format} [${m.log.join("; ").slice(0, 200)}]`]);
  } else if (wrong.length > 0) {
    const kept = join(failDir, `mutant-${id}.${m.format}`);
    writeFileSync(kept, m.bytes);
    failures.push(`#${id} ${m.kind} (${m.layer} layer, ${m.format}) [${m.log.join("; ").slice(0, 400)}] kept at ${kept}\n    ${wrong.slice(0, 3).join("\n    ")}`);
  }
}

const BASE = parseYaml(FULL_CONFIG_TEXT) as Json;
const base = (): Json => structuredClone(BASE);

/** A few top-level blocks of the full example (cheaper to load, same coverage over many mutants). */
const someBlocks = (rng: Rng): Json => {
  const doc = base();
  const keys = Object.keys(doc).filter((k) => k !== "version");
  const keep = new Set(Array.from({ length: 1 + rng.int(3) }, () => rng.pick(keys)));
  // Models, defaults and the classifier refer to providers; keep what they need often enough.
  if (keep.has("models") || keep.has("defaults") || keep.has("autonomous_permission_matcher")) {
    keep.add("providers");
    keep.add("models");
  }
  return Object.fromEntries(Object.entries(doc).filter(([k]) => k === "version" || keep.has(k)));
};

/** The full example without the global-only blocks, as a project layer would hold it. */
const projectBase = (): Json => {
  const doc = base();
  for (const k of ["data", "updates", "telemetry", "config_command_substitution"]) delete doc[k];
  return doc;
};

test(`loadConfig survives random mutants of the full example (seed ${SEED})`, () => {
  const rng = prng(SEED);
  const n = (k: keyof typeof COUNTS) => Math.max(1, Math.round(COUNTS[k] * SCALE));

  // The untouched example must pass in every format, or the mutants prove nothing.
  for (const format of FORMATS) {
    const { text, format: written } = serialize(base(), format);
    expect(written).toBe(format);
    const file = join(project.dir, `intact.${format}`);
    writeFileSync(file, text);
    const loaded = loadConfig({ cwd: project.dir, env: project.env, configFile: file });
    expect(loaded.problems.filter((p) => p.severity === "error")).toEqual([]);
  }

  for (const odd of ODD_FILES) runMutant({ kind: `odd: ${odd.name}`, format: odd.format, bytes: odd.text, layer: "global", log: [] });

  for (let i = 0; i < n("structural"); i++) {
    const doc = i % 2 === 0 ? base() : someBlocks(rng);
    const log: string[] = [];
    for (let k = 1 + rng.int(5); k > 0; k--) mutateTree(rng, doc, log);
    const { text, format } = serialize(doc, FORMATS[i % 3]!);
    runMutant({ kind: "structural", format, bytes: text, layer: "global", log });
  }

  for (let i = 0; i < n("projectLayer"); i++) {
    const doc = rng.chance(0.2) ? base() : projectBase();
    const log: string[] = [];
    for (let k = 1 + rng.int(4); k > 0; k--) mutateTree(rng, doc, log);
    const { text, format } = serialize(doc, FORMATS[i % 3]!);
    runMutant({ kind: "project layer", format, bytes: text, layer: "project", log });
  }

  const intact = Object.fromEntries(FORMATS.map((f) => [f, serialize(base(), f).text])) as Record<Format, string>;
  for (let i = 0; i < n("syntax"); i++) {
    const format = FORMATS[i % 3]!;
    const text = intact[format];
    const log: string[] = [];
    runMutant({ kind: "syntax damage", format, bytes: damageText(rng, text, format, log), layer: "global", log });
  }

  for (let i = 0; i < n("invalidUtf8"); i++) {
    const log: string[] = [];
    let format = FORMATS[i % 3]!;
    let text = intact[format];
    if (rng.chance(0.3)) {
      const doc = base();
      mutateTree(rng, doc, log);
      ({ text, format } = serialize(doc, format));
    }
    const bytes = new TextEncoder().encode(text);
    // Insert between two ASCII bytes, so the first bad byte is exactly where it was inserted.
    let at = rng.int(bytes.length + 1);
    while (at > 0 && at < bytes.length && (bytes[at - 1]! >= 0x80 || bytes[at]! >= 0x80)) at--;
    const bad = rng.pick(BAD_UTF8);
    const out = new Uint8Array(bytes.length + bad.length);
    out.set(bytes.subarray(0, at), 0);
    out.set(bad, at);
    out.set(bytes.subarray(at), at + bad.length);
    log.push(`bytes ${bad.map((b) => b.toString(16)).join(" ")} at offset ${at}`);
    runMutant({
      kind: "invalid UTF-8",
      format,
      bytes: out,
      layer: "global",
      log,
      expect: (loaded) => {
        const p = loaded.problems.find((q) => /UTF-8/.test(q.message));
        if (loaded.ok || !p) return "invalid UTF-8 was not reported";
        if (!p.message.includes(`offset ${at}`)) return `wrong offset for the bad byte at ${at}: ${p.message}`;
        return undefined;
      },
    });
  }

  const MB = 1 << 20;
  const hugeFillers = [
    () => "a".repeat(MB),
    () => "é".repeat(MB / 2),
    () => "${".repeat(MB / 2),
    () => "$(".repeat(MB / 2),
    () => "${A:-".repeat(MB / 5),
    () => "mcp__".repeat(MB / 5),
    () => Array.from({ length: 4096 }, (_, i) => String.fromCharCode(32 + ((i * 7919) % 0x2000))).join("").repeat(MB / 4096),
  ];
  for (let i = 0; i < n("hugeString"); i++) {
    const doc = base();
    const slot = randomSlot(rng, doc);
    const filler = rng.int(hugeFillers.length);
    if (slot) (slot.parent as Json)[slot.key] = hugeFillers[filler]!();
    const { text, format } = serialize(doc, FORMATS[i % 3]!);
    runMutant({ kind: "1 MB string", format, bytes: text, layer: "global", log: [`filler ${filler} at ${slot?.key}`] });
  }
  for (let i = 0; i < n("hugeKey"); i++) {
    const doc = base();
    // 32 KB, not 1 MB: a 1 MB unknown key costs seconds of edit-distance work (reported separately).
    doc.daemon["k".repeat(32 * 1024)] = true;
    const { text, format } = serialize(doc, FORMATS[i % 3]!);
    runMutant({ kind: "32 KB key", format, bytes: text, layer: "global", log: [] });
  }

  // 10,000 levels of lists under plugins, which accepts any value and so reaches every stage. Flow-style
  // YAML and inline TOML keep the file small. (Nested objects elsewhere cost seconds, and 20,000 levels
  // throw: both reported separately.)
  const DEPTH = 10_000;
  const deep: Record<Format, () => string> = {
    json: () => `${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}`,
    yaml: () => `${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}`,
    toml: () => `${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}`,
  };
  for (let i = 0; i < n("deepNesting"); i++) {
    const format = FORMATS[i % 3]!;
    const doc = base();
    const marker = "DEEP_NEST_MARKER";
    doc.plugins.deep = marker;
    const { text } = serialize(doc, format);
    const quoted = format === "yaml" ? new RegExp(`["']?${marker}["']?`) : `"${marker}"`;
    runMutant({ kind: "10k-level nesting", format, bytes: text.replace(quoted, deep[format]()), layer: "global", log: ["under plugins"] });
  }

  const perKind = [...timeByKind].map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)} s`).join(", ");
  console.log(`fuzz: seed ${SEED}, ${counter} mutants (${perKind}); slowest load ${slowest.ms.toFixed(0)} ms (${slowest.what.slice(0, 160)})`);
  for (const [name, hits] of known) {
    console.warn(`fuzz: known bug "${name}" hit by ${hits.length} mutants, e.g. ${hits.slice(0, 3).join(" | ")}`);
  }
  if (failures.length > 0) {
    throw new Error(`${failures.length} of ${counter} mutants broke loadConfig (reproduce with FUZZ_SEED=${SEED}):\n${failures.slice(0, 15).join("\n")}`);
  }
}, 120_000);
