// `agent gateway host --join URL [--join URL2 ...]`: runs this machine as a host of a multi-host gateway
// (docs/gateway-hosts.md, Joining a host) in the foreground until SIGTERM/SIGINT; its daemons keep running
// after it stops and are re-adopted by the next start. Bad flags are usage errors (exit 2); log lines on
// stderr are JSON, one object a line, as `agent gateway serve` writes them, and never hold the token.
import { jsonLineLogger } from "../../admin/json-log.ts";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { EXIT, UsageError, type Io, type ParsedArgs } from "../../../util/cli-command.ts";
import { parseGatewayConfig } from "../../config/load.ts";
import { hostName as hostNameProblem } from "../../config/spec.ts";
import { connectUrl } from "../mux/dial.ts";
import { HostAgent } from "./agent.ts";
import { normalizeFingerprint } from "./fronts.ts";

/** Where the token comes from when no flag names it (keeps it out of process lists and shell history). */
export const TOKEN_ENV = "AGENT_HOST_TOKEN";

export interface HostAgentSettings {
  urls: string[];
  token: string;
  name: string;
  dataDir: string;
  fingerprints: string[];
}

function list(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : typeof value === "string" ? [value] : [];
}

/** The default data dir: `$XDG_DATA_HOME/agent-host`, else `~/.local/share/agent-host`. */
export function defaultHostDataDir(env: Record<string, string | undefined>): string {
  return join(env.XDG_DATA_HOME || join(env.HOME || "~", ".local", "share"), "agent-host");
}

/** The flags and environment as settings; a UsageError names the flag and what is allowed. */
export function hostSettings(args: ParsedArgs, env: Record<string, string | undefined>, machine = hostname()): HostAgentSettings {
  const urls = list(args.flags.join);
  if (urls.length === 0) throw new UsageError("--join URL is required: a gateway front's base URL, e.g. --join https://gateway.example:19870 (repeat --join for each front replica)");
  for (const url of urls) {
    try {
      connectUrl(url);
    } catch (error) {
      throw new UsageError(`--join ${url}: ${(error as Error).message}`);
    }
  }
  if (new Set(urls).size !== urls.length) throw new UsageError("--join: the same front is named twice (one connection per front)");

  const tokenFile = args.flags["token-file"] as string | undefined;
  const tokenFlag = args.flags.token as string | undefined;
  if (tokenFile !== undefined && tokenFlag !== undefined) throw new UsageError("--token and --token-file: give one of them");
  let token: string;
  let from: string;
  if (tokenFile !== undefined) {
    if (!existsSync(tokenFile)) throw new UsageError(`--token-file ${tokenFile}: no such file`);
    token = readFileSync(tokenFile, "utf8").trim();
    from = `--token-file ${tokenFile}`;
  } else if (tokenFlag !== undefined) {
    token = tokenFlag.trim();
    from = "--token";
  } else {
    token = (env[TOKEN_ENV] ?? "").trim();
    from = `$${TOKEN_ENV}`;
    if (!token) throw new UsageError(`no host token: set $${TOKEN_ENV} or give --token-file FILE (create one on a front's machine with: agent gateway host-token create --host NAME)`);
  }
  // Never echoed: only where it came from and what it should look like.
  if (!/^hst_[A-Za-z0-9_-]{20,}$/.test(token)) throw new UsageError(`${from}: not a host token (expected hst_ followed by its secret, as agent gateway host-token create prints it)`);

  const name = (args.flags.name as string | undefined) ?? machine;
  const problem = hostNameProblem(name);
  if (problem) throw new UsageError(`--name ${JSON.stringify(name)}: ${problem}${args.flags.name === undefined ? " (the default is the machine's hostname; give --name)" : ""}`);

  const fingerprints = list(args.flags["tls-fingerprint"]).map((text) => {
    const fingerprint = normalizeFingerprint(text);
    if (!fingerprint) throw new UsageError(`--tls-fingerprint ${JSON.stringify(text)}: expected a SHA-256 fingerprint, SHA256:AB:CD:... (32 bytes in hex), as agent gateway serve prints it`);
    return fingerprint;
  });
  const dataDir = (args.flags["data-dir"] as string | undefined) ?? defaultHostDataDir(env);
  return { urls, token, name, dataDir, fingerprints };
}

export async function runHost(args: ParsedArgs, io: Io): Promise<number> {
  const settings = hostSettings(args, io.env);
  // Read once: nothing this process starts (pre-run scripts, daemons, their tools) may inherit the host's
  // credential, even through a configuration that names the variable.
  delete io.env[TOKEN_ENV];
  delete process.env[TOKEN_ENV];
  mkdirSync(settings.dataDir, { recursive: true, mode: 0o700 });
  const logger = jsonLineLogger(io);
  // The host's own settings for its daemons: the built-in defaults (timeouts, environment) and its name.
  const config = parseGatewayConfig(`auth: {}\nhost_name: ${settings.name}\n`, "<agent gateway host>");
  const agent = new HostAgent({ urls: settings.urls, token: settings.token, config, dataDir: settings.dataDir, fingerprints: settings.fingerprints, logger });
  const services = agent.start();
  io.out(`agent host ${settings.name} joining ${settings.urls.join(", ")}\ndata dir: ${settings.dataDir}\ndaemons reach the gateway at ${services}\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGTERM", resolve);
    process.once("SIGINT", resolve);
  });
  agent.stop();
  io.out(`agent host ${settings.name} stopped (its daemons keep running; the next start re-adopts them)\n`);
  return EXIT.ok;
}
