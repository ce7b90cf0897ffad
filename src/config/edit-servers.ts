// Adds and removes `mcp_servers` entries in a config file's text for `agent mcp add|remove`, keeping what
// the user wrote around them: YAML through the yaml Document API (comments, order and the other entries
// stay), TOML by appending or cutting the entry's own tables (the rest of the text is untouched), JSON by
// parse and print (JSON has no comments; key order is kept, indentation becomes two spaces).
import { isMap, parseDocument } from "yaml";
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import type { ConfigFormat } from "./parse.ts";

export class ConfigEditError extends Error {}

/** The text with `mcp_servers.<name>` set to `entry`; an existing entry of that name is an error. */
export function addServer(text: string, format: ConfigFormat, name: string, entry: Record<string, unknown>): string {
  if (hasServer(text, format, name)) throw new ConfigEditError(`a tool server named "${name}" is already configured here; remove it first`);
  if (format === "yaml") {
    const doc = parseDocument(text);
    if (doc.errors.length > 0) throw new ConfigEditError(`the file does not parse: ${doc.errors[0]!.message}`);
    if (doc.contents === null) return `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}${doc.createNode({ mcp_servers: { [name]: entry } }).toString()}`;
    const servers = doc.getIn(["mcp_servers"]);
    if (servers === null || servers === undefined) doc.setIn(["mcp_servers"], doc.createNode({ [name]: entry }));
    else doc.setIn(["mcp_servers", name], doc.createNode(entry));
    return doc.toString();
  }
  if (format === "toml") {
    const table = stringifyToml({ mcp_servers: { [name]: entry } }).replace(/^\[mcp_servers\]\n/m, "");
    return `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}${text.trim() === "" ? "" : "\n"}${table.trimEnd()}\n`;
  }
  const json = parseJson(text);
  const servers = (json.mcp_servers ?? {}) as Record<string, unknown>;
  json.mcp_servers = { ...servers, [name]: entry };
  return `${JSON.stringify(json, null, 2)}\n`;
}

/** The text without `mcp_servers.<name>`; undefined when the file does not configure it. */
export function removeServer(text: string, format: ConfigFormat, name: string): string | undefined {
  if (!hasServer(text, format, name)) return undefined;
  if (format === "yaml") {
    const doc = parseDocument(text);
    doc.deleteIn(["mcp_servers", name]);
    const servers = doc.getIn(["mcp_servers"]);
    if (isMap(servers) && servers.items.length === 0 && !servers.commentBefore && !servers.comment) doc.deleteIn(["mcp_servers"]);
    return doc.toString();
  }
  if (format === "toml") {
    const lines = text.split("\n");
    const header = (line: string) => /^\s*\[/.test(line);
    const own = (line: string) => {
      const m = /^\s*\[\s*mcp_servers\s*\.\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*(\.|\])/.exec(line);
      if (!m) return false;
      const key = m[1]!.startsWith('"') ? (JSON.parse(m[1]!) as string) : m[1]!.replace(/^'|'$/g, "");
      return key === name;
    };
    const kept: string[] = [];
    let skipping = false;
    for (const line of lines) {
      if (header(line)) skipping = own(line);
      if (!skipping) kept.push(line);
    }
    const result = kept.join("\n").replace(/\n{3,}/g, "\n\n");
    if (hasServer(result, format, name)) {
      throw new ConfigEditError(`"${name}" is written inline (not as a [mcp_servers.${name}] table); remove it by hand`);
    }
    return result;
  }
  const json = parseJson(text);
  const servers = { ...(json.mcp_servers as Record<string, unknown>) };
  delete servers[name];
  if (Object.keys(servers).length === 0) delete json.mcp_servers;
  else json.mcp_servers = servers;
  return `${JSON.stringify(json, null, 2)}\n`;
}

function hasServer(text: string, format: ConfigFormat, name: string): boolean {
  let doc: Record<string, unknown>;
  try {
    doc = format === "yaml" ? ((parseDocument(text).toJS() ?? {}) as Record<string, unknown>) : format === "toml" ? (parseToml(text) as Record<string, unknown>) : parseJson(text);
  } catch (error) {
    throw new ConfigEditError(`the file does not parse: ${(error as Error).message.split("\n")[0]}`);
  }
  const servers = doc.mcp_servers;
  return typeof servers === "object" && servers !== null && Object.hasOwn(servers, name);
}

function parseJson(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  const value = JSON.parse(text) as unknown;
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ConfigEditError("the file does not hold a JSON object");
  return value as Record<string, unknown>;
}
