// One config file, read as a layer: refused when it is too large, not a regular file, not UTF-8, not
// parseable or not a map at the top; otherwise its data with the unsafe keys normalized away. Problems
// go to `out`, located in the file.
import { normalizeLayer } from "./normalize.ts";
import type { LayerName } from "./merge.ts";
import { decodeUtf8, formatOf, isParseFailure, parseConfigText, type ParsedFile } from "./parse.ts";
import { ProblemList } from "./problems.ts";
import { MAX_CONFIG_FILE_BYTES, readBoundedFile } from "../util/bounded-read.ts";

export function readLayer(name: LayerName, path: string, out: ProblemList): ParsedFile | undefined {
  const format = formatOf(path);
  if (!format) {
    out.error([], `unsupported config file extension`, { file: path, allowed: ".yaml, .yml, .toml, .json" });
    return undefined;
  }
  const read = readBoundedFile(path, MAX_CONFIG_FILE_BYTES);
  if (!("bytes" in read)) {
    const message = {
      missing: "config file not found",
      not_regular: "the config is not a regular file",
      too_large: `the config file is ${read.size} bytes, over the limit of ${MAX_CONFIG_FILE_BYTES} bytes (4 MiB); it was not read`,
      unreadable: `cannot read the config file (${read.code})`,
    }[read.problem];
    out.error([], message, { file: path });
    return undefined;
  }
  const bytes = read.bytes;
  const decoded = decodeUtf8(bytes);
  if ("badOffset" in decoded) {
    out.error([], `the file is not valid UTF-8 (first bad byte at offset ${decoded.badOffset})`, { file: path });
    return undefined;
  }
  const parsed = parseConfigText(path, decoded.text.replace(/^\uFEFF/, ""), format);
  if (isParseFailure(parsed)) {
    out.error([], parsed.message, { file: path, line: parsed.position?.line, column: parsed.position?.column });
    return undefined;
  }
  const data = parsed.data;
  if (data !== null && data !== undefined && (typeof data !== "object" || Array.isArray(data) || data instanceof Date)) {
    out.error([], `the top level of a ${name} config must be a map of keys`, { file: path });
    return undefined;
  }
  const layerProblems = new ProblemList();
  const safe = normalizeLayer((data ?? {}) as Record<string, unknown>, layerProblems);
  for (const p of layerProblems.items) out.items.push({ ...p, file: path });
  return safe ? { ...parsed, data: safe } : undefined;
}
