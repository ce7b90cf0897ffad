// Implementations of `agent auth provider login|logout|status`. Tokens never reach the output: the
// user sees the verification address, the user code, the profile path and expiry times only.
import { dataRoot } from "../config/files.ts";
import { loadConfig, type LoadedConfig } from "../config/load.ts";
import { formatProblem } from "../config/problems.ts";
import { heldBack, heldBackNotice } from "../config/trust/assess.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import { catalogProvider } from "../providers/catalog.ts";
import { DeviceAuthError } from "../providers/device-auth/device-flow.ts";
import { DeviceLoginConfigError, resolveDeviceLogin } from "../providers/device-auth/endpoints.ts";
import { runDeviceLogin } from "../providers/device-auth/login.ts";
import { type AuthProfile, type DeviceKind, deleteProfile, listProfiles, loadProfile, profilePath, REFRESH_MARGIN_MS } from "../providers/device-auth/profiles.ts";
import type { FetchLike } from "../providers/http.ts";
import type { ProviderAuthSettings } from "../providers/settings.ts";
import type { AuthRunners } from "./auth-commands.ts";
import { CliError, EXIT, type Io, type ParsedArgs, UsageError } from "../util/cli-command.ts";
import { didYouMean } from "../util/did-you-mean.ts";

export interface AuthCliDeps {
  clock: Clock;
  fetch?: FetchLike;
}

type DeviceAuth = Extract<ProviderAuthSettings, { type: DeviceKind }>;
const isDevice = (auth: ProviderAuthSettings | null | undefined): auth is DeviceAuth => auth?.type === "device_a" || auth?.type === "device_b";

function load(args: ParsedArgs, io: Io): LoadedConfig {
  return loadConfig({ cwd: io.cwd, env: io.env, configFile: args.flags.config as string | undefined });
}

/** Configured providers whose auth is a device login, by key. */
function deviceProviders(loaded: LoadedConfig): [string, DeviceAuth][] {
  return Object.entries(loaded.config.providers ?? {}).flatMap(([key, p]) => (isDevice(p?.auth) ? [[key, p.auth] as [string, DeviceAuth]] : []));
}

/** The device auth of provider `name`, or an error a user can act on. */
function deviceAuthOf(loaded: LoadedConfig, name: string): DeviceAuth {
  const providers = loaded.config.providers ?? {};
  const provider = Object.hasOwn(providers, name) ? providers[name] : undefined;
  if (!provider) {
    const problems = loaded.problems.filter((p) => p.severity === "error" && p.parts?.[0] === "providers" && p.parts[1] === name);
    if (problems.length > 0) throw new CliError(`provider '${name}' has config errors:\n${problems.map(formatProblem).join("\n")}`);
    const devices = deviceProviders(loaded).map(([k]) => k);
    const hint = didYouMean(name, [...devices, ...Object.keys(providers)], "'");
    const known = devices.length > 0 ? `providers with a device login: ${devices.join(", ")}` : "no configured provider uses a device login (auth: { type: device_a or device_b, profile: NAME })";
    throw new UsageError(`unknown provider '${name}'${hint}; ${known}`);
  }
  if (!isDevice(provider.auth))
    throw new CliError(`provider '${name}' does not use a device login (its auth type is ${provider.auth?.type ?? "unset"}); only auth types device_a and device_b log in here`);
  return provider.auth;
}

function profileName(args: ParsedArgs, auth: DeviceAuth | null): string {
  const name = (args.flags.profile as string | undefined) ?? auth?.profile;
  if (!name) throw new UsageError("give --provider NAME or --profile NAME");
  try {
    profilePath("/", name);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return name;
}

const minutes = (secs: number) => (secs >= 120 ? `${Math.round(secs / 60)} minutes` : `${secs} seconds`);

function loginFailure(error: DeviceAuthError): CliError {
  switch (error.code) {
    case "access_denied":
      return new CliError("the login was denied in the browser; nothing was saved");
    case "expired_token":
      return new CliError("the code expired before the login was approved; nothing was saved. Run the login again");
    case "network":
      return new CliError(`login failed: ${error.message}; nothing was saved`);
    default:
      return new CliError(`login failed: ${error.message}; nothing was saved`);
  }
}

async function login(deps: AuthCliDeps, args: ParsedArgs, io: Io): Promise<number> {
  const name = args.flags.provider as string | undefined;
  if (!name) throw new UsageError("missing --provider NAME (the provider's key under `providers:`)");
  const loaded = load(args, io);
  // The project's own login server waits for trust: the login is not sent elsewhere meanwhile.
  const untrusted = heldBack(loaded.trust, `providers.${name}.auth`);
  if (untrusted.length > 0) throw new CliError(`${heldBackNotice(loaded.trust, untrusted, io.cwd, `the login of provider '${name}'`)}; nothing was sent or saved`);
  const auth = deviceAuthOf(loaded, name);
  const profile = profileName(args, auth);
  const kind = loaded.config.providers![name]!.kind;
  const fromCatalog = kind.type === "catalog" ? catalogProvider(kind.name)?.deviceLogin : undefined;
  const json = Boolean(args.flags.json);
  const say = (text: string) => (json ? io.err(text) : io.out(text));
  let result: Awaited<ReturnType<typeof runDeviceLogin>>;
  try {
    result = await runDeviceLogin({
      provider: name,
      auth,
      profile,
      endpoints: () => resolveDeviceLogin(name, auth, fromCatalog, { clock: deps.clock, fetch: deps.fetch }),
      dataRoot: dataRoot(io.env),
      deps: { clock: deps.clock, fetch: deps.fetch },
      show: (grant) => {
        say(`To log in provider '${name}' (${auth.type}), open\n  ${grant.verification_uri}\nand enter the code\n  ${grant.user_code}\n`);
        if (grant.verification_uri_complete) say(`(or open ${grant.verification_uri_complete}, which fills in the code)\n`);
        say(`Waiting for approval; the code expires in ${minutes(grant.expires_in)}...\n`);
      },
    });
  } catch (error) {
    if (error instanceof DeviceAuthError) throw loginFailure(error);
    if (error instanceof DeviceLoginConfigError) throw new CliError(`${error.message}; nothing was saved`);
    throw error;
  }
  const expires = result.expiresAt === null ? null : new Date(result.expiresAt).toISOString();
  if (json) {
    io.out(`${JSON.stringify({ provider: name, kind: result.kind, profile: result.profile, path: result.path, expires_at: expires, refreshable: result.refreshable }, null, 2)}\n`);
  } else {
    const renew = result.refreshable ? "renewed automatically" : "no refresh token: log in again when it expires";
    io.out(`Logged in: provider '${name}', profile '${result.profile}' saved to ${result.path}${expires ? ` (access token valid until ${expires}; ${renew})` : ""}\n`);
  }
  if (profile !== auth.profile)
    io.err(`note: providers.${name}.auth.profile is '${auth.profile}'; set it to '${profile}' to use this login\n`);
  return EXIT.ok;
}

async function logout(_deps: AuthCliDeps, args: ParsedArgs, io: Io): Promise<number> {
  const name = args.flags.provider as string | undefined;
  const auth = name ? deviceAuthOf(load(args, io), name) : null;
  const profile = profileName(args, auth);
  const root = dataRoot(io.env);
  const path = profilePath(root, profile);
  const removed = deleteProfile(root, profile);
  if (args.flags.json) io.out(`${JSON.stringify({ profile, path, removed }, null, 2)}\n`);
  else if (removed) io.out(`Logged out: removed profile '${profile}' (${path})\n`);
  else io.out(`Profile '${profile}' is not logged in; nothing to remove\n`);
  return EXIT.ok;
}

interface StatusRow {
  provider: string | null;
  kind: DeviceKind | null;
  profile: string;
  path: string;
  logged_in: boolean;
  state: string;
  expires_at: string | null;
  refreshable: boolean;
}

function profileState(root: string, profile: string, kind: DeviceKind | null, now: number): Omit<StatusRow, "provider" | "kind" | "profile"> {
  const path = profilePath(root, profile);
  let p: AuthProfile | null;
  try {
    p = loadProfile(root, profile);
  } catch {
    return { path, logged_in: false, state: "invalid profile file: log in again", expires_at: null, refreshable: false };
  }
  if (!p) return { path, logged_in: false, state: "not logged in", expires_at: null, refreshable: false };
  const expires_at = p.tokens.expires_at === null ? null : new Date(p.tokens.expires_at).toISOString();
  const refreshable = p.tokens.refresh_token !== null;
  const base = { path, expires_at, refreshable };
  if (kind && p.kind !== kind) return { ...base, logged_in: false, state: `stored by a ${p.kind} login, not ${kind}: log in again` };
  if (p.tokens.expires_at === null || p.tokens.expires_at - now > REFRESH_MARGIN_MS) return { ...base, logged_in: true, state: "logged in" };
  if (refreshable) return { ...base, logged_in: true, state: "logged in (token refreshed on next use)" };
  return { ...base, logged_in: false, state: "expired: log in again" };
}

async function status(deps: AuthCliDeps, args: ParsedArgs, io: Io): Promise<number> {
  const loaded = load(args, io);
  const name = args.flags.provider as string | undefined;
  const providers: [string, DeviceAuth][] = name ? [[name, deviceAuthOf(loaded, name)]] : deviceProviders(loaded);
  const root = dataRoot(io.env);
  const now = deps.clock.now();
  const rows: StatusRow[] = providers.map(([provider, auth]) => ({ provider, kind: auth.type, profile: auth.profile, ...profileState(root, auth.profile, auth.type, now) }));
  const used = new Set(providers.map(([, a]) => a.profile));
  const unused = name ? [] : listProfiles(root).filter((p) => !used.has(p));
  if (args.flags.json) {
    io.out(`${JSON.stringify({ providers: rows, unused_profiles: unused.map((p) => ({ profile: p, path: profilePath(root, p) })) }, null, 2)}\n`);
  } else if (rows.length === 0) {
    io.out("No configured provider uses a device login (auth: { type: device_a or device_b, profile: NAME }).\n");
  } else {
    const table = [["PROVIDER", "LOGIN", "PROFILE", "STATE", "EXPIRES"], ...rows.map((r) => [r.provider!, r.kind!, r.profile, r.state, r.expires_at ?? "-"])];
    const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
    for (const row of table) io.out(`${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ")}\n`);
  }
  if (!args.flags.json && unused.length > 0) io.out(`Stored profiles no provider uses: ${unused.join(", ")} (remove with 'agent auth provider logout --profile NAME')\n`);
  return rows.every((r) => r.logged_in) ? EXIT.ok : EXIT.failure;
}

export function authRunners(over: Partial<AuthCliDeps> = {}): AuthRunners {
  // Standalone terminal flow: the spec applies daemon.tls.trust_store to daemon-owned HTTPS only.
  const deps: AuthCliDeps = { clock: systemClock, ...over };
  return {
    login: (a, io) => login(deps, a, io),
    logout: (a, io) => logout(deps, a, io),
    status: (a, io) => status(deps, a, io),
  };
}
