// Implementations of `agent mcp add|list|remove|login|logout|test`.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addServer, ConfigEditError, removeServer } from "../config/edit-servers.ts";
import { dataRoot, findConfigIn, findProject, globalConfigDir } from "../config/files.ts";
import { loadConfig, type LoadedConfig } from "../config/load.ts";
import { formatOf } from "../config/parse.ts";
import { formatPath } from "../config/problems.ts";
import type { McpManager, McpServerConfig, McpServerStatus } from "../mcp/index.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { redactText } from "../util/redact.ts";
import { CliError, EXIT, UsageError, type Io, type ParsedArgs } from "../util/cli-command.ts";

const DEFAULT_LOGIN_SECONDS = 300;

/** The config file `add`/`remove` edit: the global one, or the project's with --project (created when absent). */
function targetFile(args: ParsedArgs, io: Io): { path: string; created: boolean } {
  const dir = args.flags.project ? (findProject(io.cwd, io.env).agentDir ?? join(findProject(io.cwd, io.env).root, ".agent")) : globalConfigDir(io.env);
  const found = findConfigIn(dir);
  if (found.kind === "conflict") throw new CliError(`two config files exist: ${found.paths.join(" and ")}; keep one`);
  if (found.kind === "one") return { path: found.path, created: false };
  return { path: join(dir, "config.yaml"), created: true };
}

function pairs(values: unknown, flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of (values as string[] | undefined) ?? []) {
    const eq = item.indexOf("=");
    if (eq <= 0) throw new UsageError(`--${flag} takes NAME=VALUE, got '${item}'`);
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

/** Problems the loaded config has with one server (after an edit), as lines. */
function serverProblems(loaded: LoadedConfig, name: string): string[] {
  const prefix = formatPath(["mcp_servers", name]);
  return loaded.problems
    .filter((p) => p.severity === "error" && (p.path === prefix || p.path.startsWith(`${prefix}.`) || p.path.startsWith(`${prefix}[`)))
    .map((p) => `${p.path}: ${p.message}${p.allowed ? ` (allowed: ${p.allowed})` : ""}`);
}

export async function add(args: ParsedArgs, io: Io): Promise<number> {
  const [name, ...command] = args.positionals as [string, ...string[]];
  const url = args.flags.url as string | undefined;
  if (url && command.length > 0) throw new UsageError("give either --url (an http server) or a command after -- (a stdio server), not both");
  if (!url && command.length === 0) throw new UsageError(`give the server's command after --, or --url: e.g. agent mcp add ${name} -- npx -y @modelcontextprotocol/server-everything`);
  const entry: Record<string, unknown> = url ? { transport: "http", url } : { transport: "stdio", command: command[0], ...(command.length > 1 ? { args: command.slice(1) } : {}) };
  if (url) {
    if (args.flags.env || args.flags["pass-env"]) throw new UsageError("--env and --pass-env are for stdio servers");
    const headers = pairs(args.flags.header, "header");
    if (Object.keys(headers).length > 0) entry.headers = headers;
    if (args.flags.auth) entry.auth = { type: args.flags.auth };
  } else {
    if (args.flags.header || args.flags.auth) throw new UsageError("--header and --auth are for http servers (--url)");
    const env = pairs(args.flags.env, "env");
    if (Object.keys(env).length > 0) entry.env = env;
    if (args.flags["pass-env"]) entry.pass_env = args.flags["pass-env"];
  }
  if (args.flags.disabled) entry.default_enabled = false;

  const { path, created } = targetFile(args, io);
  const format = formatOf(path)!;
  const before = created ? "" : readFileSync(path, "utf8");
  let text: string;
  try {
    text = addServer(created ? "version: 3\n" : before, format, name, entry);
  } catch (error) {
    if (error instanceof ConfigEditError) throw new CliError(`agent mcp add: ${path}: ${error.message}`);
    throw error;
  }
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileAtomic(path, text, created ? 0o600 : statSync(path).mode & 0o777);
  const problems = serverProblems(loadConfig({ cwd: io.cwd, env: io.env, untrusted: "keep" }), name);
  if (problems.length > 0) {
    // The file stays as it was: a server the config rejects would stop every session from starting.
    if (created) rmSync(path, { force: true });
    else writeFileAtomic(path, before, statSync(path).mode & 0o777);
    throw new CliError(`agent mcp add: not added; the config would not accept it:\n  ${problems.join("\n  ")}`);
  }
  if (args.flags.json) io.out(`${JSON.stringify({ name, file: path, entry }, null, 2)}\n`);
  else {
    io.out(`added tool server ${name} to ${path}\n`);
    if (entry.auth && (entry.auth as { type: string }).type === "oauth") io.out(`authorize it with: agent mcp login ${name}\n`);
    io.out(`try it with: agent mcp test ${name}\n`);
  }
  return EXIT.ok;
}

export async function remove(args: ParsedArgs, io: Io): Promise<number> {
  const name = args.positionals[0]!;
  const { path, created } = targetFile(args, io);
  let text: string | undefined;
  try {
    text = created ? undefined : removeServer(readFileSync(path, "utf8"), formatOf(path)!, name);
  } catch (error) {
    if (error instanceof ConfigEditError) throw new CliError(`agent mcp remove: ${path}: ${error.message}`);
    throw error;
  }
  if (text === undefined) {
    const where = args.flags.project ? "the project's config" : "the global config";
    const elsewhere = loadConfig({ cwd: io.cwd, env: io.env, untrusted: "keep" }).config.mcp_servers?.[name] !== undefined;
    throw new CliError(`agent mcp remove: ${where} (${created ? "no file" : path}) has no tool server named ${name}${elsewhere ? `; it is set in ${args.flags.project ? "the global config" : "the project's config (use --project)"}` : ""}`);
  }
  writeFileAtomic(path, text, statSync(path).mode & 0o777);
  if (args.flags.json) io.out(`${JSON.stringify({ name, file: path, removed: true }, null, 2)}\n`);
  else io.out(`removed tool server ${name} from ${path}\n`);
  return EXIT.ok;
}

function describeTarget(server: McpServerConfig): string {
  return server.transport === "http" ? server.url : [server.command, ...(server.args ?? [])].join(" ");
}

function authState(server: McpServerConfig, name: string, root: string): string {
  if (server.transport !== "http") return "-";
  const type = server.auth?.type ?? "none";
  if (type !== "oauth") return type;
  const file = join(root, "auth", "mcp", server.auth_key_name ?? name, "credentials.json");
  try {
    const stored = JSON.parse(readFileSync(file, "utf8")) as { server_url?: string; tokens?: unknown };
    return stored.tokens && stored.server_url === server.url ? "oauth: authorized" : "oauth: not authorized";
  } catch {
    return "oauth: not authorized";
  }
}

export async function list(args: ParsedArgs, io: Io): Promise<number> {
  const loaded = loadConfig({ cwd: io.cwd, env: io.env, untrusted: "keep" });
  const stripped = loadConfig({ cwd: io.cwd, env: io.env });
  const root = dataRoot(io.env);
  const rows = Object.entries(loaded.config.mcp_servers ?? {}).map(([name, server]) => {
    const origin = [...loaded.origins].find(([key]) => key.startsWith(`${formatPath(["mcp_servers", name])}.`))?.[1] ?? "global";
    return {
      name,
      transport: server.transport,
      target: redactText(describeTarget(server), loaded.secrets),
      enabled: server.default_enabled !== false,
      auth: authState(server, name, root),
      set_in: origin,
      trusted: stripped.config.mcp_servers?.[name] !== undefined,
    };
  });
  if (args.flags.json) {
    io.out(`${JSON.stringify({ servers: rows }, null, 2)}\n`);
    return EXIT.ok;
  }
  if (rows.length === 0) {
    io.out("No tool servers configured. Add one with: agent mcp add NAME -- COMMAND [ARGS...]  or  agent mcp add NAME --url URL\n");
    return EXIT.ok;
  }
  const table = [["NAME", "TRANSPORT", "TARGET", "ENABLED", "AUTH", "SET IN"], ...rows.map((r) => [r.name, r.transport, r.target, r.enabled ? "yes" : "no", r.auth, r.set_in === "project" && !r.trusted ? "project (not trusted: agent trust)" : r.set_in])];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  for (const row of table) io.out(`${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ")}\n`);
  return EXIT.ok;
}

/** The server as a session would see it; an untrusted project's server is named as such. */
function serverConfig(name: string, io: Io): { server: McpServerConfig; loaded: LoadedConfig } {
  const loaded = loadConfig({ cwd: io.cwd, env: io.env });
  const server = loaded.config.mcp_servers?.[name];
  if (server) return { server, loaded };
  if (loadConfig({ cwd: io.cwd, env: io.env, untrusted: "keep" }).config.mcp_servers?.[name]) {
    throw new CliError(`tool server ${name} is set by this project, which is not trusted; run 'agent trust' first`);
  }
  const known = Object.keys(loaded.config.mcp_servers ?? {});
  throw new CliError(`no tool server named ${name} in the config${known.length > 0 ? ` (configured: ${known.join(", ")})` : ""}`);
}

async function openManager(name: string, server: McpServerConfig, io: Io, stderr: string[]): Promise<McpManager> {
  const { createMcpManager } = await import("../mcp/index.ts");
  return createMcpManager({
    servers: { [name]: { ...server, default_enabled: true } },
    dataRoot: dataRoot(io.env),
    clock: { now: () => Date.now() },
    log: (entry) => {
      if (entry.source === "stderr") stderr.push(entry.message);
    },
    cwd: findProject(io.cwd, io.env).root,
    env: io.env,
    outputDir: mkdtempSync(join(tmpdir(), "agent-mcp-")),
    onDeclined: () => {},
  });
}

function failure(status: McpServerStatus, stderr: string[]): string {
  const tail = stderr.slice(-10);
  return `tool server ${status.name} ${status.state}${status.reason ? `: ${status.reason}` : ""}${tail.length > 0 ? `\nits last stderr lines:\n  ${tail.join("\n  ")}` : ""}`;
}

export async function test(args: ParsedArgs, io: Io): Promise<number> {
  const name = args.positionals[0]!;
  const { server } = serverConfig(name, io);
  const stderr: string[] = [];
  const manager = await openManager(name, server, io, stderr);
  try {
    await manager.start();
    const status = manager.servers()[0]!;
    if (status.state !== "connected") {
      const hint = status.state === "needs_auth" ? `tool server ${name} needs authorization: run 'agent mcp login ${name}'` : failure(status, stderr);
      if (args.flags.json) io.out(`${JSON.stringify({ name, state: status.state, reason: status.reason ?? null })}\n`);
      io.err(`agent mcp test: ${hint}\n`);
      return EXIT.failure;
    }
    const tools = manager.tools().map((t) => ({ name: t.name, description: (t.description ?? "").split("\n")[0]!.trim() }));
    if (args.flags.json) io.out(`${JSON.stringify({ name, state: status.state, tools, warnings: status.warnings ?? [] }, null, 2)}\n`);
    else {
      io.out(`tool server ${name}: connected, ${tools.length} tool${tools.length === 1 ? "" : "s"}\n`);
      const width = Math.max(0, ...tools.map((t) => t.name.length));
      for (const t of tools) io.out(`  ${t.name.padEnd(width)}  ${t.description.length > 80 ? `${t.description.slice(0, 79)}…` : t.description}\n`);
      for (const w of status.warnings ?? []) io.out(`warning: ${w}\n`);
    }
    return EXIT.ok;
  } finally {
    await manager.close();
  }
}

export async function login(args: ParsedArgs, io: Io): Promise<number> {
  const name = args.positionals[0]!;
  const { server } = serverConfig(name, io);
  if (server.transport !== "http" || server.auth?.type !== "oauth") {
    const what = server.transport === "http" ? `auth type ${server.auth?.type ?? "none"}` : "a stdio server";
    throw new CliError(`tool server ${name} uses ${what}: there is nothing to log in to (agent mcp test ${name} tries the connection)`);
  }
  const seconds = args.flags.timeout === undefined ? DEFAULT_LOGIN_SECONDS : Number(args.flags.timeout);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`--timeout takes a positive number of seconds, got '${args.flags.timeout}'`);
  const stderr: string[] = [];
  const manager = await openManager(name, server, io, stderr);
  try {
    await manager.start();
    let status = manager.servers()[0]!;
    if (status.state === "connected") {
      io.out(args.flags.json ? `${JSON.stringify({ name, state: "connected", already_authorized: true })}\n` : `tool server ${name} is already authorized (${status.toolCount} tools)\n`);
      return EXIT.ok;
    }
    if (status.state !== "needs_auth" || !status.authorizationUrl) throw new CliError(`agent mcp login: ${failure(status, stderr)}`);
    const fixedHttps = server.auth.redirect?.type === "fixed" && server.auth.redirect.uri.startsWith("https:");
    if (args.flags.json) io.out(`${JSON.stringify({ name, state: "needs_auth", authorization_url: status.authorizationUrl })}\n`);
    else io.out(`Open this address in a browser to authorize ${name}:\n\n  ${status.authorizationUrl}\n\n${fixedHttps ? "Then paste the address the browser lands on here and press Enter.\n" : "Waiting for the browser…\n"}`);
    if (fixedHttps) await manager.completeAuthorization(name, (await io.stdin()).trim().split("\n")[0]!);
    const until = Date.now() + seconds * 1000;
    while (Date.now() < until) {
      status = manager.servers()[0]!;
      if (status.state === "connected" || status.state === "failed") break;
      await Bun.sleep(100);
    }
    if (status.state !== "connected") {
      const why = status.state === "needs_auth" ? `no authorization within ${seconds} s` : failure(status, stderr);
      if (args.flags.json) io.out(`${JSON.stringify({ name, state: status.state, reason: status.reason ?? why })}\n`);
      throw new CliError(`agent mcp login: ${why}`);
    }
    io.out(args.flags.json ? `${JSON.stringify({ name, state: "connected", tools: status.toolCount })}\n` : `authorized: tool server ${name} is connected (${status.toolCount} tools); sessions use the stored credentials\n`);
    return EXIT.ok;
  } finally {
    await manager.close();
  }
}

export async function logout(args: ParsedArgs, io: Io): Promise<number> {
  const name = args.positionals[0]!;
  const loaded = loadConfig({ cwd: io.cwd, env: io.env, untrusted: "keep" });
  const server = loaded.config.mcp_servers?.[name];
  const key = server?.auth_key_name ?? name;
  if (!server && !existsSync(join(dataRoot(io.env), "auth", "mcp", key))) throw new CliError(`no tool server named ${name} in the config, and no stored credentials under that name`);
  const dir = join(dataRoot(io.env), "auth", "mcp", key);
  const file = join(dir, "credentials.json");
  const had = existsSync(file);
  rmSync(dir, { recursive: true, force: true });
  if (args.flags.json) io.out(`${JSON.stringify({ name, path: file, removed: had })}\n`);
  else io.out(had ? `forgot the credentials of ${name} (${file}); 'agent mcp login ${name}' authorizes again\n` : `no stored credentials for ${name}\n`);
  return had ? EXIT.ok : EXIT.failure;
}
