// Checks that need more than the schema: cross references, names, URLs, files.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { didYouMean } from "../util/did-you-mean.ts";
import { PROTOCOL_INFO } from "../providers/protocols.ts";
import { catalogDefaults, catalogProvider } from "../providers/catalog.ts";
import { ProviderConfigError, resolveProvider } from "../providers/resolve.ts";
import {
  AGENT_REFERENCES,
  BUILTIN_FACETS,
  BUILTIN_TOOL_NAMES,
  REQUIRED_TOOL_NAMES,
  SYSTEM_REMINDER_NAMES,
  SYSTEM_REMINDER_NAME_PATTERN,
} from "./builtin-names.ts";
import type { ModelTable } from "./models.ts";
import type { ProblemList } from "./problems.ts";
import { checkProjectFile } from "./project-paths.ts";
import { THEME_ALLOWED, themeNameProblem } from "./theme-names.ts";
import type { AppConfig } from "./schema.ts";
import { loadTrustStore, type TrustStore } from "./trust-store.ts";

export interface SemanticContext {
  projectRoot: string;
  agentDir?: string;
  cwd: string;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function urlProblem(value: string, schemes: string[]): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "is not a valid URL";
  }
  if (!schemes.includes(url.protocol)) return `uses ${url.protocol.replace(":", "")}`;
  return undefined;
}

function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function checkProviders(config: AppConfig, out: ProblemList): void {
  for (const [name, p] of Object.entries(config.providers ?? {})) {
    const path = ["providers", name];
    const before = out.errors.length;
    const custom = p.kind.type !== "catalog";
    const catalog = p.kind.type === "catalog" ? catalogProvider(p.kind.name) : undefined;
    const protocol = p.protocol ?? catalog?.protocol;
    if (custom && !p.url) out.error([...path, "url"], `a provider of kind ${p.kind.type} needs 'url' (the base address of its API)`);
    if (p.url && protocol !== "test") {
      const bad = urlProblem(p.url, ["http:", "https:"]);
      if (bad) out.error([...path, "url"], `'${p.url}' ${bad}`, { allowed: "an http:// or https:// URL" });
    }
    for (const header of Object.keys(p.headers ?? {})) {
      if (!HEADER_NAME.test(header)) out.error([...path, "headers", header], `'${header}' is not a valid HTTP header name`, { allowed: "letters, digits and !#$%&'*+.^_`|~-" });
    }
    if (p.auth?.type === "static_key" && p.auth.key.trim() === "") {
      out.error([...path, "auth", "key"], "the key is empty");
    }
    const base = protocol ? PROTOCOL_INFO[protocol].baseDialect : p.kind.type === "custom_a_compatible" ? "a_messages" : undefined;
    if (p.cache_control_strategy && base !== undefined && base !== "a_messages") {
      out.warn([...path, "cache_control_strategy"], `applies only to Messages-dialect providers; this provider speaks ${protocol} and ignores it`);
    }
    // The provider layer's own rules (protocol fits the kind, URL joining, default URLs), when nothing above failed.
    if (out.errors.length === before && (custom || catalog)) {
      try {
        resolveProvider(name, p, catalogDefaults(p));
      } catch (error) {
        if (!(error instanceof ProviderConfigError)) throw error;
        const message = error.message.replace(`provider '${name}': `, "");
        const field = /^(url|protocol|headers)\b:? ?/.exec(message);
        out.error(field ? [...path, field[1]!] : path, field && message.startsWith(`${field[1]}: `) ? message.slice(field[0].length) : message);
      }
    }
  }
}

function checkMcp(config: AppConfig, out: ProblemList): void {
  const keyNames = new Map<string, string>();
  const toolPrefixes = new Map<string, string>();
  for (const [name, server] of Object.entries(config.mcp_servers ?? {})) {
    const path = ["mcp_servers", name];
    // Tool names are mcp__<server>__<tool>: a `__` (or an edge `_`) in a server name lets one server's tools
    // take another's names, and names that differ only in characters providers refuse end up the same.
    if (name.includes("__") || name.startsWith("_") || name.endsWith("_")) {
      out.error(path, `the server name '${name}' has ${name.includes("__") ? "'__'" : "an underscore at its edge"}, which makes its tool names (mcp__${name}__<tool>) ambiguous`, { allowed: "letters, digits, '-' and single '_' inside the name" });
    } else {
      const prefix = name.replace(/[^A-Za-z0-9_-]/g, "_");
      const other = toolPrefixes.get(prefix);
      if (other !== undefined) out.error(path, `the servers '${other}' and '${name}' would both name their tools mcp__${prefix}__<tool>; rename one`);
      else toolPrefixes.set(prefix, name);
    }
    if (server.default_timeout_seconds === 0) {
      out.error([...path, "default_timeout_seconds"], "zero is not allowed; omit the key for no timeout", { allowed: "a positive number of seconds" });
    }
    if (server.startup_timeout_seconds === 0) {
      out.error([...path, "startup_timeout_seconds"], "zero is not allowed; omit the key for the default (30 s)", { allowed: "a positive number of seconds" });
    }
    if (server.max_output_bytes != null && server.max_output_bytes < 1024) {
      out.error([...path, "max_output_bytes"], `${server.max_output_bytes} bytes is too little to show a result`, { allowed: "1024 or more" });
    }
    for (const [i, entry] of (server.block_list ?? []).entries()) {
      const m = /^mcp__(.+?)__(.+)$/.exec(entry);
      if (!m) out.error([...path, "block_list", i], `'${entry}' is not a tool name of the form mcp__<server>__<tool>`);
      else if (m[1] !== name) out.error([...path, "block_list", i], `'${entry}' names server '${m[1]}', not '${name}'`, { allowed: `mcp__${name}__<tool>` });
    }
    const usesOAuth = server.transport === "http" && server.auth?.type === "oauth";
    if (server.auth_key_name != null) {
      if (!usesOAuth) {
        out.error([...path, "auth_key_name"], "is only used by servers with transport http and auth type oauth; nothing registers credentials under it here");
      }
      const other = keyNames.get(server.auth_key_name);
      if (other) out.error([...path, "auth_key_name"], `'${server.auth_key_name}' is already used by server '${other}'; their stored credentials would overwrite each other`);
      else keyNames.set(server.auth_key_name, name);
    }
    if (server.transport === "http") {
      const bad = urlProblem(server.url, ["http:", "https:"]);
      if (bad) out.error([...path, "url"], `'${server.url}' ${bad}`, { allowed: "an http:// or https:// URL" });
      for (const header of Object.keys(server.headers ?? {})) {
        if (!HEADER_NAME.test(header)) out.error([...path, "headers", header], `'${header}' is not a valid HTTP header name`);
      }
      if (server.auth?.type === "oauth") {
        const reg = server.auth.registration;
        if (reg?.type === "client-metadata-url") {
          let ok = false;
          try {
            const u = new URL(reg.url);
            ok = u.protocol === "https:" && u.pathname !== "/" && u.pathname !== "";
          } catch {
            ok = false;
          }
          if (!ok) out.error([...path, "auth", "registration", "url"], `'${reg.url}' must be an HTTPS URL with a non-root path`);
        }
        const redirect = server.auth.redirect;
        if (redirect?.type === "fixed") {
          let ok = false;
          try {
            const u = new URL(redirect.uri);
            ok = u.protocol === "https:" || (u.protocol === "http:" && isLoopbackHost(u.hostname));
          } catch {
            ok = false;
          }
          if (!ok) out.error([...path, "auth", "redirect", "uri"], `'${redirect.uri}' must be an HTTPS URL or a loopback http:// URL`);
        }
      }
      if (server.auth?.type === "client-credentials" || server.auth?.type === "cross-app-access") checkMachineAuth(server.auth, [...path, "auth"], out);
    }
  }
}

type MachineAuth = Extract<NonNullable<Extract<NonNullable<AppConfig["mcp_servers"]>[string], { transport: "http" }>["auth"]>, { type: "client-credentials" | "cross-app-access" }>;

/** Exactly one way to authenticate each client; secret files are absolute or under ~ (no working-directory guesses). */
function checkMachineAuth(auth: MachineAuth, path: (string | number)[], out: ProblemList): void {
  const exactlyOne = (where: (string | number)[], keys: string[], present: (string | undefined)[], what: string) => {
    const set = keys.filter((_, i) => present[i] !== undefined);
    if (set.length !== 1) out.error(where, set.length === 0 ? `needs ${what}` : `sets ${set.join(" and ")}; only one may be set`, { allowed: keys.join(" or ") });
  };
  if (auth.type === "client-credentials") {
    exactlyOne(path, ["client_secret", "client_secret_file", "private_key", "private_key_file"], [auth.client_secret, auth.client_secret_file, auth.private_key, auth.private_key_file], "a client secret (client_secret_basic) or a private key (private_key_jwt)");
    if (auth.signing_algorithm !== undefined && auth.private_key === undefined && auth.private_key_file === undefined) {
      out.warn([...path, "signing_algorithm"], "is only used with private_key or private_key_file; ignored");
    }
    if (auth.authorization_server !== undefined && urlProblem(auth.authorization_server, ["http:", "https:"])) {
      out.error([...path, "authorization_server"], `'${auth.authorization_server}' is not an http(s) URL`);
    }
  } else {
    exactlyOne(path, ["client_secret", "client_secret_file"], [auth.client_secret, auth.client_secret_file], "the client's secret at the tool server's authorization server");
    exactlyOne([...path, "idp"], ["id_token", "id_token_file"], [auth.idp.id_token, auth.idp.id_token_file], "the user's ID token from the identity provider");
    if (auth.idp.client_secret !== undefined && auth.idp.client_secret_file !== undefined) out.error([...path, "idp"], "sets client_secret and client_secret_file; only one may be set");
    if (urlProblem(auth.idp.token_endpoint, ["http:", "https:"])) out.error([...path, "idp", "token_endpoint"], `'${auth.idp.token_endpoint}' is not an http(s) URL`);
  }
  const files: [(string | number)[], string | undefined][] = [
    [[...path, "client_secret_file"], auth.client_secret_file],
    ...(auth.type === "client-credentials" ? [[[...path, "private_key_file"], auth.private_key_file] as [(string | number)[], string | undefined]] : []),
    ...(auth.type === "cross-app-access"
      ? ([
          [[...path, "idp", "client_secret_file"], auth.idp.client_secret_file],
          [[...path, "idp", "id_token_file"], auth.idp.id_token_file],
        ] as [(string | number)[], string | undefined][])
      : []),
  ];
  for (const [where, file] of files) {
    if (file !== undefined && !file.startsWith("/") && !file.startsWith("~/")) out.error(where, `'${file}' is relative; secret files are named by an absolute path or ~/...`);
  }
}

function checkDaemon(config: AppConfig, ctx: SemanticContext, out: ProblemList): TrustStore | undefined {
  const d = config.daemon;
  if (!d) return undefined;
  for (const [i, name] of (d.system_reminders?.disabled ?? []).entries()) {
    const path = ["daemon", "system_reminders", "disabled", i];
    if (!SYSTEM_REMINDER_NAME_PATTERN.test(name)) {
      out.error(path, `malformed reminder name '${name}' (lowercase words joined by underscores)`, { allowed: SYSTEM_REMINDER_NAMES.join(", ") });
    } else if (!(SYSTEM_REMINDER_NAMES as readonly string[]).includes(name)) {
      out.error(path, `unknown system reminder '${name}'${didYouMean(name, SYSTEM_REMINDER_NAMES, "'")}`, { allowed: SYSTEM_REMINDER_NAMES.join(", ") });
    }
  }
  for (const [i, tool] of (d.disabled_tools ?? []).entries()) {
    const path = ["daemon", "disabled_tools", i];
    if ((REQUIRED_TOOL_NAMES as readonly string[]).includes(tool)) {
      out.warn(path, `'${tool}' is required by the agent loop and cannot be disabled; the entry is ignored`);
    } else if (!tool.startsWith("mcp__") && !(BUILTIN_TOOL_NAMES as readonly string[]).includes(tool)) {
      out.warn(path, `'${tool}' is not a built-in tool${didYouMean(tool, BUILTIN_TOOL_NAMES, "'")}; tool-server tools are named mcp__<server>__<tool>`);
    }
  }
  for (const key of ["http_proxy", "https_proxy"] as const) {
    const value = d.web?.[key];
    if (value) {
      const bad = urlProblem(value, ["http:", "https:", "socks5:", "socks5h:"]);
      if (bad) out.error(["daemon", "web", key], `'${value}' ${bad}`, { allowed: "an http://, https:// or socks5:// proxy URL" });
    }
  }
  const trustPath = d.tls?.trust_store;
  if (trustPath) {
    const store = loadTrustStore(trustPath, ctx.cwd);
    if ("error" in store) out.error(["daemon", "tls", "trust_store"], store.error);
    else return store;
  }
  return undefined;
}

function checkPrompts(config: AppConfig, ctx: SemanticContext, out: ProblemList): void {
  const follow = config.daemon?.follow_symlinks_for_configs ?? true;
  for (const block of ["facets", "subagents"] as const) {
    for (const [name, def] of Object.entries(config[block] ?? {})) {
      const path = [block, name, "source"];
      const source = def.source;
      if (source.startsWith("agent://")) {
        if (!AGENT_REFERENCES.includes(source)) {
          out.error(path, `unknown shipped reference '${source}'${didYouMean(source, AGENT_REFERENCES, "'")}`, { allowed: AGENT_REFERENCES.join(", ") });
        }
        continue;
      }
      const check = checkProjectFile(ctx.projectRoot, source, follow);
      if (!check.ok) out.error(path, `'${source}' ${check.reason}`, { allowed: "agent://... or a file path relative to the project" });
    }
  }
  const init = config.agent_behavior?.shell.init_script;
  if (init) {
    const check = checkProjectFile(ctx.projectRoot, init, follow);
    if (!check.ok) out.error(["agent_behavior", "shell", "init_script"], `'${init}' ${check.reason}`);
  }
  const facets = new Set<string>([...BUILTIN_FACETS, ...Object.keys(config.facets ?? {})]);
  for (const key of ["default_facet", "default_exec_facet"] as const) {
    const facet = config.active_session?.[key];
    if (!facet || facets.has(facet)) continue;
    if (ctx.agentDir && existsSync(join(ctx.agentDir, "facets", `${facet}.md`))) continue;
    out.error(["active_session", key], `unknown facet '${facet}'${didYouMean(facet, facets, "'")}`, {
      allowed: `${[...facets].join(", ")}, or a file .agent/facets/<name>.md`,
    });
  }
}

function checkTui(config: AppConfig, out: ProblemList): void {
  const theme = config.tui?.theme;
  // A `$` left in the value is a substitution that failed, already reported where it failed.
  const problem = theme == null || theme.includes("$") ? null : themeNameProblem(theme);
  if (problem) out.error(["tui", "theme"], problem, { allowed: THEME_ALLOWED });
}

export function checkSemantics(config: AppConfig, table: ModelTable, ctx: SemanticContext, out: ProblemList): { trustStore?: TrustStore } {
  checkProviders(config, out);
  checkMcp(config, out);
  const trustStore = checkDaemon(config, ctx, out);
  checkPrompts(config, ctx, out);
  checkTui(config, out);
  const classifier = config.autonomous_permission_matcher?.classifier_model;
  if (classifier && !table.models.has(classifier) && !table.pending.some((p) => p.key === classifier)) {
    out.error(["autonomous_permission_matcher", "classifier_model"], `unknown model '${classifier}'${didYouMean(classifier, table.models.keys(), "'")}`);
  }
  const search = config.integrations?.search;
  if (search?.strategy && !Object.values(search.providers ?? {}).some((p) => p?.enabled)) {
    out.warn(["integrations", "search", "strategy"], "no search provider is enabled, so web_search is unavailable");
  }
  return { trustStore };
}
