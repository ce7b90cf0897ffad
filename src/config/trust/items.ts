// What in a project needs the user's consent before it is used: every setting that starts a program or
// script, or sends the user's credentials (or traffic) to an address the project chose. Each item says
// what a person reviews (`shown`), what the pin covers (`pin`, plus the content of `files`), and which
// keys are left out of the config while the project is not trusted (`remove`).
import { relative, resolve } from "node:path";
import type { LayerName } from "../merge.ts";
import { at, type Doc, isMap, text } from "../doc.ts";
import { environmentReferences } from "./env-references.ts";
import { modelChoice } from "./model-choice.ts";
import { projectShellCommands } from "./project-commands.ts";
import { MAX_REACHED_FILES, MAX_SCANNED_BYTES, reachedFiles, type ScanCache } from "./reached-files.ts";

export type TrustItemKind =
  | "tool_server"
  | "init_script"
  | "provider"
  | "model"
  | "defaults"
  | "device_login"
  | "trust_store"
  | "web_proxy"
  | "permission_matcher"
  | "permission_rules"
  | "environment"
  | "project_command"
  | "hook"
  | "notify_program";

export interface TrustItem {
  kind: TrustItemKind;
  /** The config key, e.g. `mcp_servers.probe`. */
  key: string;
  /** One line for a person: exactly what would run or where credentials would go. */
  shown: string;
  /** The trust-relevant values, as written in the project file (before `${VAR}` substitution). */
  pin: unknown;
  /** Absolute paths of project files whose content is pinned too (scripts and what they run, certificates). */
  files: string[];
  /** Keys left out of each layer while the project is not trusted. */
  remove: { layer: LayerName; path: string[] }[];
}

export interface TrustInput {
  /** The project layer after upgrade, before substitution (what the file says). */
  projectRaw?: Record<string, unknown>;
  /** The global layer after substitution. */
  global?: Record<string, unknown>;
  projectRoot: string;
  /** Where relative `daemon.tls.trust_store` paths resolve (the loader's working directory). */
  cwd: string;
  /** The allow rules of the project's `.agent/permissions.yaml`, as written, and those the user added by answering "allow always in this project". */
  permissionRules?: { shownAs: string; allow: string[]; answered: string[] };
}

/** A word quoted for a POSIX shell only when it needs it, so the command line reads as it would be typed. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The pinned files for a person, and what the limits left out (src/config/trust/reached-files.ts). */
function shownFiles(root: string, files: string[], incomplete: boolean): string {
  const limits = `only the first ${MAX_REACHED_FILES} files and ${MAX_SCANNED_BYTES / 1024 / 1024} MiB of each are followed, what lies beyond is not pinned`;
  return [files.map((f) => relative(root, f)).join(", "), incomplete ? limits : ""].filter(Boolean).join("; ");
}

const TOOL_SERVER_KEYS = ["transport", "command", "args", "env", "pass_env", "url", "headers", "auth", "auth_key_name"];

function toolServers(input: TrustInput, items: TrustItem[], scans: ScanCache): void {
  const servers = at(input.projectRaw, "mcp_servers");
  if (!isMap(servers)) return;
  for (const [name, raw] of Object.entries(servers)) {
    if (!isMap(raw) || !TOOL_SERVER_KEYS.some((k) => k in raw)) continue;
    // What runs is the merged entry: the project may set only some keys of a global server.
    const base = at(input.global, "mcp_servers", name);
    const entry: Doc = { ...(isMap(base) ? base : {}), ...raw };
    const key = `mcp_servers.${name}`;
    const remove = [{ layer: "project" as const, path: ["mcp_servers", name] }];
    if (entry.transport === "http" || (entry.transport === undefined && typeof entry.url === "string")) {
      const headers = isMap(entry.headers) ? Object.keys(entry.headers).sort() : [];
      const auth = isMap(entry.auth) ? text(entry.auth.type) : "none";
      const extra = [headers.length ? `headers ${headers.join(", ")}` : "", auth !== "none" ? `auth ${auth}${entry.auth_key_name ? ` (${text(entry.auth_key_name)})` : ""}` : ""].filter(Boolean);
      items.push({
        kind: "tool_server",
        key,
        shown: `tool server '${name}' at ${text(entry.url)}${extra.length ? ` with ${extra.join(" and ")}` : ""}`,
        pin: { transport: "http", url: raw.url ?? entry.url, headers: raw.headers ?? headers, auth: raw.auth ?? auth, auth_key_name: entry.auth_key_name ?? null },
        files: [],
        remove,
      });
      continue;
    }
    const command = typeof entry.command === "string" ? entry.command : "";
    const args = Array.isArray(entry.args) ? entry.args.map(text) : [];
    const env = isMap(entry.env) ? entry.env : {};
    const passEnv = Array.isArray(entry.pass_env) ? entry.pass_env.map(text) : null;
    const { files, incomplete } = reachedFiles(input.projectRoot, [command, ...args], "command", scans);
    const extra = [
      Object.keys(env).length ? `env ${Object.keys(env).sort().join(", ")}` : "",
      passEnv ? `passing ${passEnv.length ? passEnv.join(", ") : "no variables"}` : "",
      files.length ? `pinned with ${shownFiles(input.projectRoot, files, incomplete)}` : "",
    ].filter(Boolean);
    items.push({
      kind: "tool_server",
      key,
      shown: `tool server '${name}' runs: ${[command, ...args].map(shellWord).join(" ")}${extra.length ? ` (${extra.join("; ")})` : ""}`,
      // It runs in the project directory, which the trust record is keyed by (so not pinned here).
      pin: { transport: "stdio", command, args, env, pass_env: passEnv },
      files,
      remove,
    });
  }
}

/**
 * `agent_behavior.shell.init_script` names a project file, so its content is the project's even when the
 * global config names it: it is trusted per project, whichever layer sets it.
 */
function initScript(input: TrustInput, items: TrustItem[], scans: ScanCache): void {
  const fromProject = at(input.projectRaw, "agent_behavior", "shell", "init_script");
  const path = fromProject === undefined ? at(input.global, "agent_behavior", "shell", "init_script") : fromProject;
  if (typeof path !== "string" || path === "") return;
  const absolute = resolve(input.projectRoot, path);
  // What the script sources or runs from the project is pinned with it.
  const reached = reachedFiles(input.projectRoot, [path], "sourced", scans);
  const more = reached.files.filter((f) => f !== absolute);
  items.push({
    kind: "init_script",
    key: "agent_behavior.shell.init_script",
    shown: `shell init script ${path} (sourced by the shell tool before its first command${more.length || reached.incomplete ? `; pinned with ${shownFiles(input.projectRoot, more, reached.incomplete)}` : ""})${fromProject === undefined ? ", named by the global config" : ""}`,
    pin: { path },
    files: [absolute, ...more],
    remove: [
      { layer: "project", path: ["agent_behavior", "shell", "init_script"] },
      { layer: "global", path: ["agent_behavior", "shell", "init_script"] },
    ],
  });
}

/** The fields of a device login that say where it authorizes (src/providers/device-auth/endpoints.ts). */
export const DEVICE_LOGIN_ADDRESSES = ["issuer", "device_authorization_endpoint", "token_endpoint"] as const;

/**
 * Where a provider's device login (`agent auth provider login`) authorizes: the login's device code, the
 * approval the user gives and the tokens issued go to these addresses, and the saved profile refreshes at the
 * token endpoint for good. Set by the project, they wait for trust whatever the auth type or the provider's
 * url; the catalog's and the global config's need none. `client_id` and `scope` send nothing elsewhere.
 */
function deviceLogins(input: TrustInput, items: TrustItem[]): void {
  const block = at(input.projectRaw, "providers");
  if (!isMap(block)) return;
  for (const [name, raw] of Object.entries(block)) {
    const auth = isMap(raw) ? raw.auth : undefined;
    if (!isMap(auth)) continue;
    const fields = DEVICE_LOGIN_ADDRESSES.filter((k) => typeof auth[k] === "string" && auth[k] !== "");
    if (fields.length === 0) continue;
    items.push({
      kind: "device_login",
      key: `providers.${name}.auth`,
      shown: `provider '${name}' logs in (your approval, codes and tokens) at ${fields.map((k) => `providers.${name}.auth.${k} ${text(auth[k])}`).join(", ")}`,
      pin: Object.fromEntries(fields.map((k) => [k, auth[k]])),
      files: [],
      remove: fields.map((k) => ({ layer: "project" as const, path: ["providers", name, "auth", k] })),
    });
  }
}

function daemonBlock(input: TrustInput, items: TrustItem[]): void {
  const store = at(input.projectRaw, "daemon", "tls", "trust_store");
  if (typeof store === "string" && store !== "") {
    items.push({
      kind: "trust_store",
      key: "daemon.tls.trust_store",
      shown: `extra CA certificates ${store} (trusted for model provider and web requests)`,
      pin: { path: store },
      files: [resolve(input.cwd, store)],
      remove: [{ layer: "project", path: ["daemon", "tls", "trust_store"] }],
    });
  }
  for (const key of ["http_proxy", "https_proxy"] as const) {
    const proxy = at(input.projectRaw, "daemon", "web", key);
    if (typeof proxy !== "string" || proxy === "") continue;
    items.push({
      kind: "web_proxy",
      key: `daemon.web.${key}`,
      shown: `web tools send their ${key === "http_proxy" ? "plain-HTTP" : "HTTPS"} requests through ${proxy}`,
      pin: { [key]: proxy },
      files: [],
      remove: [{ layer: "project", path: ["daemon", "web", key] }],
    });
  }
}

const LOOSE_MATCHERS: Record<string, string> = {
  bypass: "every tool call runs without asking",
  bypass_plus: "every tool call a deny rule does not block runs without asking",
  autonomous: "a model decides which tool calls run without asking",
};

function permissionMatcher(input: TrustInput, items: TrustItem[]): void {
  const matcher = at(input.projectRaw, "default_permission_matcher");
  if (typeof matcher === "string" && LOOSE_MATCHERS[matcher]) {
    items.push({
      kind: "permission_matcher",
      key: "default_permission_matcher",
      shown: `permission matcher '${matcher}': ${LOOSE_MATCHERS[matcher]}`,
      pin: { matcher },
      files: [],
      remove: [{ layer: "project", path: ["default_permission_matcher"] }],
    });
  }
  const effective = typeof matcher === "string" ? matcher : at(input.global, "default_permission_matcher");
  const tuning = at(input.projectRaw, "autonomous_permission_matcher");
  if (effective === "autonomous" && isMap(tuning) && Object.keys(tuning).length > 0) {
    items.push({
      kind: "permission_matcher",
      key: "autonomous_permission_matcher",
      shown: `autonomous permission classifier tuned by the project (${Object.keys(tuning).sort().join(", ")})`,
      pin: tuning,
      files: [],
      remove: [{ layer: "project", path: ["autonomous_permission_matcher"] }],
    });
  }
}

/**
 * Allow rules of the project's rule file let tool calls (shell commands, writes, fetches) run without
 * asking. Those the user added by answering "allow always in this project" are the user's own (recorded
 * under the data root, src/config/trust/rule-answers.ts); the rest came with the project. Deny and ask
 * rules only tighten and need no trust.
 */
function permissionRules(input: TrustInput, items: TrustItem[]): void {
  const rules = input.permissionRules;
  if (!rules) return;
  const answered = new Set(rules.answered);
  const own = [...new Set(rules.allow.filter((r) => !answered.has(r)))].sort();
  if (own.length === 0) return;
  items.push({
    kind: "permission_rules",
    key: "permissions.allow",
    shown: `allow rules in ${rules.shownAs}: ${own.join(", ")}`,
    pin: { allow: own },
    files: [],
    // Not config keys: the permission gate leaves them out (ProjectTrust.projectAllowRules).
    remove: [],
  });
}

/** A project command that runs shell lines (src/config/trust/project-commands.ts): its file is pinned. */
function projectCommands(input: TrustInput, items: TrustItem[]): void {
  for (const c of projectShellCommands(input.projectRoot)) {
    items.push({
      kind: "project_command",
      key: `commands.${c.name}`,
      shown: `command /${c.name} (${relative(input.projectRoot, c.path)}) runs: ${c.commands.join("; ")}`,
      pin: { commands: c.commands },
      files: [c.path],
      // Not a config key: the command's shell lines stay refused (src/agent/commands/custom/expand.ts).
      remove: [],
    });
  }
}

/**
 * The project's `hooks` (src/agent/hooks/): each command runs with `sh -c` on an engine event, so each is
 * an item, with the project files it runs pinned as an init script's are.
 */
function projectHooks(input: TrustInput, items: TrustItem[], scans: ScanCache): void {
  const block = at(input.projectRaw, "hooks");
  if (!isMap(block)) return;
  for (const [event, groups] of Object.entries(block)) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((group, g) => {
      if (!isMap(group) || !Array.isArray(group.hooks)) return;
      const matcher = typeof group.matcher === "string" && group.matcher.trim() !== "" ? group.matcher : null;
      group.hooks.forEach((hook, h) => {
        if (!isMap(hook) || typeof hook.command !== "string") return;
        const command = hook.command;
        const reached = reachedFiles(input.projectRoot, ["sh", "-c", command], "command", scans);
        const pinned = reached.files.length || reached.incomplete ? ` (pinned with ${shownFiles(input.projectRoot, reached.files, reached.incomplete)})` : "";
        items.push({
          kind: "hook",
          key: `hooks.${event}[${g}].hooks[${h}]`,
          shown: `${event} hook${matcher ? ` for ${matcher}` : ""} runs: ${command}${pinned}`,
          pin: { event, matcher, command, timeout: hook.timeout ?? null },
          files: reached.files,
          remove: [{ layer: "project", path: ["hooks"] }],
        });
      });
    });
  }
}

/** A project's `notify` program runs after its turns and questions (src/agent/notifications/user-alerts.ts). */
function notifyProgram(input: TrustInput, items: TrustItem[], scans: ScanCache): void {
  const program = at(input.projectRaw, "notify");
  if (!Array.isArray(program) || program.length === 0) return;
  const words = program.map(text);
  const reached = reachedFiles(input.projectRoot, words, "command", scans);
  const pinned = reached.files.length || reached.incomplete ? ` (pinned with ${shownFiles(input.projectRoot, reached.files, reached.incomplete)})` : "";
  items.push({
    kind: "notify_program",
    key: "notify",
    shown: `notify program runs after turns and questions: ${words.map(shellWord).join(" ")}${pinned}`,
    pin: { notify: words },
    files: reached.files,
    remove: [{ layer: "project", path: ["notify"] }],
  });
}

/** Every trust-relevant setting of a project, in a stable order. */
export function trustItems(input: TrustInput): TrustItem[] {
  const items: TrustItem[] = [];
  const scans: ScanCache = new Map();
  toolServers(input, items, scans);
  initScript(input, items, scans);
  modelChoice(input, items);
  deviceLogins(input, items);
  daemonBlock(input, items);
  permissionMatcher(input, items);
  permissionRules(input, items);
  projectCommands(input, items);
  projectHooks(input, items, scans);
  notifyProgram(input, items, scans);
  // Last: only what no item above already leaves out.
  environmentReferences(input, items);
  return items;
}
