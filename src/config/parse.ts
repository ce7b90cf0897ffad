// Reads a config file in any supported format and keeps a way to find the line:column of a key path.
import { extname } from "node:path";
import { isMap, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import { parse as parseToml, TomlError } from "smol-toml";
import type { KeyPath } from "./problems.ts";

export type ConfigFormat = "yaml" | "json" | "toml";

export interface Position {
  line: number;
  column: number;
}

export interface ParsedFile {
  path: string;
  format: ConfigFormat;
  text: string;
  data: unknown;
  /** Where the deepest existing part of `parts` is written in the file. */
  locate(parts: KeyPath): Position | undefined;
}

export interface ParseFailure {
  path: string;
  message: string;
  position?: Position;
}

export const CONFIG_EXTENSIONS = ["yaml", "yml", "toml", "json"] as const;

export function formatOf(path: string): ConfigFormat | undefined {
  switch (extname(path).toLowerCase()) {
    case ".yaml": case ".yml": return "yaml";
    case ".json": return "json";
    case ".toml": return "toml";
    default: return undefined;
  }
}

/** Decodes UTF-8 strictly: a config with invalid bytes is reported, never half-read. */
export function decodeUtf8(bytes: Uint8Array): { text: string } | { badOffset: number } {
  try {
    return { text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes) };
  } catch {
    return { badOffset: firstInvalidUtf8(bytes) };
  }
}

/** Offset of the first byte that is not part of a well-formed UTF-8 sequence (one linear pass). */
function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (c >= 0xc2 && c <= 0xdf) [need, min] = [1, 0x80];
    else if (c >= 0xe0 && c <= 0xef) [need, min] = [2, 0x800];
    else if (c >= 0xf0 && c <= 0xf4) [need, min] = [3, 0x10000];
    else return i;
    let cp = c & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const cont = b[i + k];
      if (cont === undefined || (cont & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (cont & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return b.length;
}

/**
 * Positions come from the yaml package's Document API, built only when a problem needs a line: the
 * document model costs ten times the parse itself, and a clean config never needs it.
 */
function yamlLocator(text: string): ParsedFile["locate"] {
  const lineCounter = new LineCounter();
  let doc: ReturnType<typeof parseDocument> | undefined;
  let built = false;
  return (parts) => {
    if (!built) {
      built = true;
      try {
        doc = parseDocument(text, { lineCounter, keepSourceTokens: false });
      } catch {
        doc = undefined;
      }
    }
    let node: unknown = doc?.contents;
    let offset: number | undefined = (node as Node | null)?.range?.[0];
    for (const part of parts) {
      if (isMap(node)) {
        const pair = node.items.find((p) => (p.key as { value?: unknown } | null)?.value === part);
        if (!pair) break;
        offset = (pair.key as Node).range?.[0] ?? offset;
        node = pair.value;
      } else if (isSeq(node) && typeof part === "number") {
        const item = node.items[part] as Node | undefined;
        if (!item) break;
        offset = item.range?.[0] ?? offset;
        node = item;
      } else break;
    }
    if (offset === undefined) return undefined;
    const pos = lineCounter.linePos(offset);
    return { line: pos.line, column: pos.col };
  };
}

/** TOML keys: `[table.path]` headers and `key = value` lines, with simple quoted-key support. */
function tomlLocator(text: string): ParsedFile["locate"] {
  let index: Map<string, Position> | undefined;
  return (parts) => {
    index ??= tomlIndex(text);
    for (let n = parts.length; n > 0; n--) {
      const found = index.get(JSON.stringify(parts.slice(0, n).map(String)));
      if (found) return found;
    }
    return undefined;
  };
}

function tomlIndex(text: string): Map<string, Position> {
  const index = new Map<string, Position>();
  const splitKey = (raw: string) =>
    (raw.match(/"[^"]*"|'[^']*'|[^.\s]+/g) ?? []).map((k) => k.replace(/^["']|["']$/g, ""));
  let table: string[] = [];
  text.split("\n").forEach((line, i) => {
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?/.exec(line);
    if (header) {
      table = splitKey(header[1]!);
      index.set(JSON.stringify(table), { line: i + 1, column: line.indexOf("[") + 1 });
      return;
    }
    const assign = /^(\s*)((?:"[^"]*"|'[^']*'|[A-Za-z0-9_.\s-])+?)\s*=/.exec(line);
    if (assign) {
      const full = [...table, ...splitKey(assign[2]!)];
      index.set(JSON.stringify(full), { line: i + 1, column: assign[1]!.length + 1 });
    }
  });
  return index;
}

function offsetToPosition(text: string, offset: number): Position {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

export function parseConfigText(path: string, text: string, format: ConfigFormat): ParsedFile | ParseFailure {
  try {
    if (format === "toml") {
      try {
        return { path, format, text, data: parseToml(text), locate: tomlLocator(text) };
      } catch (error) {
        if (error instanceof TomlError) {
          return { path, message: `invalid TOML: ${error.message.split("\n")[0]}`, position: { line: error.line, column: error.column } };
        }
        throw error;
      }
    }
    if (format === "json") {
      try {
        return { path, format, text, data: JSON.parse(text), locate: yamlLocator(text) };
      } catch (error) {
        if (tooDeep(error)) return { path, message: NESTED_TOO_DEEPLY };
        const at = /position (\d+)/.exec(String((error as Error).message));
        return {
          path,
          message: `invalid JSON: ${(error as Error).message.replace(/^JSON Parse error: /, "")}`,
          position: at ? offsetToPosition(text, Number(at[1])) : undefined,
        };
      }
    }
    // Bun's native YAML parser reads the data (about 20x faster than the yaml package); when it refuses
    // a file, the yaml package explains where and why.
    let data: unknown;
    try {
      data = Bun.YAML.parse(text);
    } catch (error) {
      return yamlFailure(path, text, (error as Error).message);
    }
    return { path, format, text, data: data ?? {}, locate: yamlLocator(text) };
  } catch (error) {
    return { path, message: tooDeep(error) ? NESTED_TOO_DEEPLY : `could not be parsed: ${(error as Error).message}` };
  }
}

const NESTED_TOO_DEEPLY = "the file is nested too deeply to read";

function tooDeep(error: unknown): boolean {
  return error instanceof RangeError || /call stack|too deep/i.test(String((error as Error)?.message));
}

function yamlFailure(path: string, text: string, nativeMessage: string): ParseFailure {
  try {
    const lineCounter = new LineCounter();
    const doc = parseDocument(text, { lineCounter, prettyErrors: false });
    const first = doc.errors[0];
    if (first) {
      const pos = lineCounter.linePos(first.pos[0]);
      return { path, message: `invalid YAML: ${first.message.split("\n")[0]}`, position: { line: pos.line, column: pos.col } };
    }
  } catch (error) {
    if (tooDeep(error)) return { path, message: NESTED_TOO_DEEPLY };
  }
  if (tooDeep(new Error(nativeMessage))) return { path, message: NESTED_TOO_DEEPLY };
  return { path, message: `invalid YAML: ${nativeMessage.replace(/^YAML Parse error: /, "")}` };
}

export function isParseFailure(v: ParsedFile | ParseFailure): v is ParseFailure {
  return !("data" in v);
}
