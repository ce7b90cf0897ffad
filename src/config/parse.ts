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
    let offset = 0;
    const decoder = new TextDecoder("utf-8", { fatal: true });
    for (let step = 1; offset < bytes.length; ) {
      try {
        decoder.decode(bytes.subarray(0, offset + step));
        offset += step;
        step = 1;
      } catch {
        if (step >= 4 || offset + step >= bytes.length) break;
        step++;
      }
    }
    return { badOffset: offset };
  }
}

function yamlLocator(text: string): ParsedFile["locate"] {
  const lineCounter = new LineCounter();
  let doc: ReturnType<typeof parseDocument> | undefined;
  try {
    doc = parseDocument(text, { lineCounter, keepSourceTokens: false });
  } catch {
    return () => undefined;
  }
  return (parts) => {
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
  return (parts) => {
    for (let n = parts.length; n > 0; n--) {
      const found = index.get(JSON.stringify(parts.slice(0, n).map(String)));
      if (found) return found;
    }
    return undefined;
  };
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
        const at = /position (\d+)/.exec(String((error as Error).message));
        return {
          path,
          message: `invalid JSON: ${(error as Error).message.replace(/^JSON Parse error: /, "")}`,
          position: at ? offsetToPosition(text, Number(at[1])) : undefined,
        };
      }
    }
    const lineCounter = new LineCounter();
    const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
    const first = doc.errors[0];
    if (first) {
      const pos = lineCounter.linePos(first.pos[0]);
      return { path, message: `invalid YAML: ${first.message.split("\n")[0]}`, position: { line: pos.line, column: pos.col } };
    }
    const data = doc.toJS({ maxAliasCount: 100 });
    return { path, format, text, data: data ?? {}, locate: yamlLocator(text) };
  } catch (error) {
    // Parsers can still fail on pathological input (deep nesting overflows the stack, alias bombs).
    const message = error instanceof RangeError ? "the file is nested too deeply to read" : `could not be parsed: ${(error as Error).message}`;
    return { path, message };
  }
}

export function isParseFailure(v: ParsedFile | ParseFailure): v is ParseFailure {
  return !("data" in v);
}
