// Reads gateway-config.yaml: locates it, parses YAML with positions, walks the spec tree so that an
// unknown key or a bad value is reported as file:line with what is allowed, then applies derived defaults.
import { existsSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from "yaml";
import { GATEWAY_CONFIG_SPEC, type FieldSpec } from "./spec.ts";
import type { GatewayConfig } from "./types.ts";

export class GatewayConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GatewayConfigError";
  }
}

/** `$XDG_CONFIG_HOME/agent-gateway/gateway-config.yaml`, else `~/.config/agent-gateway/...`. */
export function defaultConfigPath(env: Record<string, string | undefined>): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || "~", ".config");
  return join(base, "agent-gateway", "gateway-config.yaml");
}

/** `data_dir` when set, else `$XDG_DATA_HOME/agent-gateway`, else `~/.local/share/agent-gateway`. */
export function resolveDataDir(config: GatewayConfig, env: Record<string, string | undefined>): string {
  if (config.data_dir) return config.data_dir;
  const base = env.XDG_DATA_HOME || join(env.HOME || "~", ".local", "share");
  return join(base, "agent-gateway");
}

export function loadGatewayConfig(path: string): GatewayConfig {
  if (!existsSync(path)) {
    throw new GatewayConfigError(
      `gateway config not found: ${path}\n` +
        `Create it with at least an empty auth section, for example:\n` +
        `  mkdir -p ${dirname(path)} && printf 'auth: {}\\n' > ${path}\n` +
        `or pass another file with --config FILE.`,
    );
  }
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new GatewayConfigError(`cannot read gateway config ${path}: ${(error as NodeJS.ErrnoException).code ?? "read error"}`);
  }
  return parseGatewayConfig(text, path);
}

export function parseGatewayConfig(text: string, file: string, host = hostname()): GatewayConfig {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const at = (node: Node | null | undefined) => {
    const offset = node?.range?.[0];
    return offset === undefined ? file : `${file}:${lines.linePos(offset).line}`;
  };
  const firstError = doc.errors[0];
  if (firstError) {
    const line = firstError.linePos?.[0]?.line;
    throw new GatewayConfigError(`${file}${line ? `:${line}` : ""}: invalid YAML: ${firstError.message.split("\n")[0]}`);
  }
  if (!doc.contents || (isScalar(doc.contents) && doc.contents.value === null)) {
    throw new GatewayConfigError(`${file}: the file is empty; the smallest valid config is 'auth: {}'`);
  }
  if (!isMap(doc.contents)) throw new GatewayConfigError(`${at(doc.contents)}: the config must be a mapping of keys such as 'auth:'`);
  if (!doc.contents.items.some((p) => isScalar(p.key) && p.key.value === "auth")) {
    throw new GatewayConfigError(`${file}: missing the 'auth' section (write 'auth: {}' for the defaults)`);
  }

  const walk = (spec: FieldSpec, node: Node | null | undefined, path: string): unknown => {
    const fail = (what: string): never => {
      throw new GatewayConfigError(`${at(node)}: ${path}: ${what}`);
    };
    const present = node != null && !(isScalar(node) && node.value === null);
    switch (spec.t) {
      case "obj":
      case "map": {
        if (!present) return spec.t === "obj" ? walkObj(spec.fields, undefined, path) : {};
        if (!isMap(node)) return fail(`expected a mapping, found ${describe(node)}`);
        if (spec.t === "obj") return walkObj(spec.fields, node, path);
        const out: Record<string, unknown> = {};
        for (const pair of node.items) {
          const key = String(isScalar(pair.key) ? pair.key.value : pair.key);
          const keyErr = spec.key?.(key);
          if (keyErr) throw new GatewayConfigError(`${at(pair.key as Node)}: ${path}.${key}: ${keyErr}`);
          out[key] = walk(spec.value, pair.value as Node, `${path}.${key}`);
        }
        return out;
      }
      case "str": {
        if (!present) return spec.def;
        if (!isScalar(node) || typeof node.value !== "string") return fail(`expected a string, found ${describe(node)}`);
        const err = spec.check?.(node.value);
        if (err) fail(`${JSON.stringify(spec.show ? spec.show(node.value) : node.value)}: ${err}`);
        return node.value;
      }
      case "int": {
        if (!present) return spec.def;
        const v = isScalar(node) ? node.value : undefined;
        if (typeof v !== "number" || !Number.isInteger(v)) return fail(`expected an integer, found ${describe(node)}`);
        if (v < spec.min || v > spec.max) fail(`${v} is out of range; allowed ${spec.min}..${spec.max} (${spec.summary})`);
        return v;
      }
      case "bool": {
        if (!present) return spec.def;
        if (!isScalar(node) || typeof node.value !== "boolean") return fail(`expected true or false, found ${describe(node)}`);
        return node.value;
      }
      case "strs": {
        if (!present) return [];
        if (!isSeq(node)) return fail(`expected a list of strings, found ${describe(node)}`);
        return node.items.map((item, i) => {
          const n = item as Node;
          if (!isScalar(n) || typeof n.value !== "string") throw new GatewayConfigError(`${at(n)}: ${path}[${i}]: expected a string, found ${describe(n)}`);
          const err = spec.check?.(n.value);
          if (err) throw new GatewayConfigError(`${at(n)}: ${path}[${i}]: ${JSON.stringify(n.value)}: ${err}`);
          return n.value;
        });
      }
    }
  };
  const walkObj = (fields: Record<string, FieldSpec>, node: Node | undefined, path: string) => {
    const out: Record<string, unknown> = {};
    if (node && isMap(node)) {
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        if (!Object.hasOwn(fields, key)) {
          const where = path ? `${path}.${key}` : key;
          throw new GatewayConfigError(`${at(pair.key as Node)}: unknown field '${where}'; allowed here: ${Object.keys(fields).join(", ")}`);
        }
      }
    }
    for (const [key, spec] of Object.entries(fields)) {
      const child = node && isMap(node) ? (node.get(key, true) as Node | undefined) : undefined;
      out[key] = walk(spec, child, path ? `${path}.${key}` : key);
    }
    return out;
  };

  const raw = walk(GATEWAY_CONFIG_SPEC, doc.contents, "") as Record<string, any>;
  return finish(raw, file, host);
}

function describe(node: Node | null | undefined): string {
  if (node == null) return "nothing";
  if (isMap(node)) return "a mapping";
  if (isSeq(node)) return "a list";
  if (isScalar(node)) return node.value === null ? "null" : `${typeof node.value} ${JSON.stringify(node.value)}`;
  return "an unsupported value";
}

function finish(raw: Record<string, any>, file: string, host: string): GatewayConfig {
  const base = dirname(resolve(file));
  const rel = (p: string | undefined) => (p === undefined ? undefined : isAbsolute(p) ? p : resolve(base, p));
  const cfg = raw as GatewayConfig;
  cfg.source = file;
  cfg.display_name = raw.display_name && raw.display_name.trim() !== "" ? raw.display_name : host;
  const { cert_file, key_file } = raw.tls;
  if ((cert_file === undefined) !== (key_file === undefined)) {
    const missing = cert_file === undefined ? "tls.cert_file" : "tls.key_file";
    throw new GatewayConfigError(`${file}: tls.cert_file and tls.key_file must be set together; ${missing} is missing`);
  }
  cfg.tls = { cert_file: rel(cert_file), key_file: rel(key_file) };
  cfg.data_dir = rel(raw.data_dir);
  cfg.host_name = raw.host_name ?? host;
  cfg.database.password_file = rel(raw.database.password_file);
  if (cfg.database.url === undefined && (cfg.database.password_env !== undefined || cfg.database.password_file !== undefined)) {
    throw new GatewayConfigError(`${file}: database.password_env and database.password_file need database.url (SQLite has no password)`);
  }
  if (cfg.database.password_env !== undefined && cfg.database.password_file !== undefined) {
    throw new GatewayConfigError(`${file}: set one of database.password_env and database.password_file, not both`);
  }
  cfg.auth.password.pepper_file = rel(raw.auth.password.pepper_file);
  cfg.daemon_sessions.auth_dir = rel(raw.daemon_sessions.auth_dir);
  const explicit = raw.listen.address as string | undefined;
  cfg.listen = {
    address: explicit ?? (raw.auth.external_url ? "0.0.0.0" : "127.0.0.1"),
    port: raw.listen.port,
    derived: explicit === undefined,
  };
  if (cfg.auth.session.absolute_secs < cfg.auth.session.idle_secs) {
    throw new GatewayConfigError(`${file}: auth.session.absolute_secs (${cfg.auth.session.absolute_secs}) must not be shorter than auth.session.idle_secs (${cfg.auth.session.idle_secs})`);
  }
  return cfg;
}

/** Built-in defaults, as if the file were `auth: {}` (used to render the OpenAPI document offline). */
export function defaultGatewayConfig(): GatewayConfig {
  return parseGatewayConfig("auth: {}\n", "<defaults>");
}
