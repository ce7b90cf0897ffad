// How `agent connect` reaches a gateway and signs in (gateway.md, `agent connect` client rules 1-3): the
// target (`host` or `host:port`, port 19870 by default) is plaintext HTTP only on loopback, HTTPS otherwise
// with trust on first use (src/client/tls-pin.ts; a prompt on the terminal, declined without one). A stored
// sign-in for the host is reused and refreshed; otherwise the gateway's methods decide: password or PAM
// servers get a username and password prompt, token-only servers the device flow. Tokens are kept 0600
// per host by GatewayClient. Nothing here prints a token or a password.
import { hostname, userInfo } from "node:os";
import { GatewayAuthError, GatewayClient } from "../client/gateway-client.ts";
import { describeTrustQuestion, type FetchLike, gatewayTransport, isLoopbackHost, TlsPinError, type TrustQuestion } from "../client/tls-pin.ts";
import { CliError, EXIT, type Io } from "../util/cli-command.ts";

export const DEFAULT_GATEWAY_PORT = 19870;
/** Exit code when the gateway cannot be reached or trusted. */
export const EXIT_UNREACHABLE = 3;

export interface ConnectTarget {
  /** As typed by the person, normalised: `host:port`. */
  label: string;
  host: string;
  port: number;
  baseUrl: string;
}

/** `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 address; never a URL. */
export function parseTarget(raw: string): ConnectTarget {
  const text = raw.trim();
  const usage = (why: string) => new CliError(`agent connect ${JSON.stringify(raw)}: ${why} (e.g. agent connect build-host, agent connect 10.0.0.5:19870)`, EXIT.usage);
  if (text === "") throw usage("give a host or host:port");
  if (text.includes("://") || text.includes("/") || text.includes("@")) throw usage("give a host or host:port, not a URL or path");
  let host: string;
  let port: string | undefined;
  const bracketed = /^\[([0-9a-fA-F:.]+)\](?::(.*))?$/.exec(text);
  if (bracketed) [, host, port] = bracketed as unknown as [string, string, string | undefined];
  else if ((text.match(/:/g) ?? []).length > 1) host = text; // a bare IPv6 address
  else [host, port] = text.split(":") as [string, string | undefined];
  if (!/^[A-Za-z0-9.:-]+$/.test(host) || host.startsWith("-")) throw usage(`${JSON.stringify(host)} is not a host name or IP address`);
  let portNumber = DEFAULT_GATEWAY_PORT;
  if (port !== undefined) {
    if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) throw usage(`port ${JSON.stringify(port)} is not a number from 1 to 65535`);
    portNumber = Number(port);
  }
  const urlHost = host.includes(":") ? `[${host}]` : host;
  const scheme = isLoopbackHost(host) ? "http" : "https";
  return { label: `${urlHost}:${portNumber}`, host, port: portNumber, baseUrl: `${scheme}://${urlHost}:${portNumber}` };
}

/** The transport to the gateway, asking on the terminal before trusting a certificate no CA signed. */
export async function connectTransport(target: ConnectTarget, io: Io, interactive: boolean): Promise<FetchLike> {
  const confirm = interactive
    ? async (q: TrustQuestion) => {
        const { confirm, isCancel } = await import("@clack/prompts");
        io.out(`${describeTrustQuestion(q)}\n`);
        const answer = await confirm({ message: q.kind === "first_contact" ? `Trust this certificate for ${q.host}?` : `Trust the NEW certificate for ${q.host}?`, initialValue: false });
        return !isCancel(answer) && answer === true;
      }
    : undefined;
  try {
    return await gatewayTransport(target.baseUrl, { env: io.env, confirm });
  } catch (error) {
    if (error instanceof TlsPinError) throw new CliError(error.message, EXIT_UNREACHABLE);
    throw error;
  }
}

export interface SignedIn {
  client: GatewayClient;
  /** Who the gateway says the token belongs to. */
  username: string | null;
  /** The gateway's display name. */
  name: string;
}

interface Health {
  name?: string;
  authenticated?: { username: string | null; scopes: string[] };
}

/** A token the gateway accepts with the machine scope: the stored one, or a new sign-in. */
export async function signIn(target: ConnectTarget, transport: FetchLike, io: Io, options: { device: boolean }): Promise<SignedIn> {
  const client = new GatewayClient({ baseUrl: target.baseUrl, env: io.env, fetch: transport, clientName: `agent connect (${hostname()})` });
  const health = async (token?: string): Promise<{ status: number; body: Health }> => {
    let res: Response;
    try {
      res = await transport(`${target.baseUrl}/api/v1/health`, { headers: token ? { Authorization: `Bearer ${token}` } : {}, redirect: "manual" });
    } catch (error) {
      throw new CliError(`cannot reach the gateway at ${target.baseUrl}: ${(error as Error).message}`, EXIT_UNREACHABLE);
    }
    return { status: res.status, body: (await res.json().catch(() => ({}))) as Health };
  };
  const probe = await health();
  if (probe.status !== 200) throw new CliError(`${target.baseUrl} does not answer like an agent gateway (GET /api/v1/health: ${probe.status})`, EXIT_UNREACHABLE);

  let token = await client.accessToken().catch((error: unknown) => {
    if (error instanceof GatewayAuthError && error.code === "login_required") return null;
    throw new CliError(`the stored sign-in for ${target.label} failed: ${(error as Error).message}`);
  });
  let checked = token ? await health(token) : null;
  if (!token || checked?.status === 401) {
    // No sign-in yet, or one the gateway no longer accepts (revoked): sign in afresh.
    if (token) client.store.save(target.baseUrl, { device_client_id: client.store.load(target.baseUrl).device_client_id });
    await newSignIn(client, target, transport, io, options);
    token = await client.accessToken();
    checked = await health(token);
  }
  if (checked!.status !== 200) throw new CliError(`the gateway refused the new sign-in (GET /api/v1/health: ${checked!.status})`);
  const who = checked!.body.authenticated;
  if (!who?.scopes.includes("machine")) {
    throw new CliError(`signed in as ${who?.username ?? "unknown"}, but without the machine scope that lists and opens sessions; sign in again approving 'machine' (agent connect ${target.label} --device)`);
  }
  return { client, username: who.username, name: checked!.body.name ?? target.host };
}

async function newSignIn(client: GatewayClient, target: ConnectTarget, transport: FetchLike, io: Io, options: { device: boolean }): Promise<void> {
  const res = await transport(`${target.baseUrl}/api/v1/auth/methods`, { redirect: "manual" }).catch(() => null);
  const methods = res?.ok ? (((await res.json().catch(() => ({}))) as { methods?: string[] }).methods ?? []) : [];
  const prompts = await import("@clack/prompts");
  if (!options.device && (methods.includes("password") || methods.includes("pam"))) return passwordSignIn(client, target, prompts);
  const spin = prompts.spinner();
  try {
    await client.deviceLogin((p) => {
      io.out(`To sign in to ${target.label}, open ${p.verificationUriComplete ?? p.verificationUri}\nand approve the code ${p.userCode} (valid ${Math.round(p.expiresInSecs / 60)} minutes).\n`);
      spin.start("Waiting for the approval");
    });
    spin.stop("Signed in");
  } catch (error) {
    spin.stop("Not signed in");
    throw new CliError(`sign-in to ${target.label} failed: ${(error as Error).message}`);
  }
}

type Prompts = typeof import("@clack/prompts");

/** Username and password (a principal's password or its PAM account); three tries. */
async function passwordSignIn(client: GatewayClient, target: ConnectTarget, prompts: Prompts): Promise<void> {
  const cancelled = () => new CliError("sign-in cancelled", EXIT.failure);
  let defaultUser = "";
  try {
    defaultUser = userInfo().username;
  } catch {
    defaultUser = "";
  }
  prompts.intro(`Sign in to ${target.label}`);
  for (let attempt = 1; ; attempt++) {
    const typed = await prompts.text({ message: "Username", placeholder: defaultUser || undefined, defaultValue: defaultUser || undefined, validate: (v) => (v?.trim() || defaultUser ? undefined : "a username is needed") });
    if (prompts.isCancel(typed)) throw cancelled();
    const username = typed.trim() || defaultUser;
    const password = await prompts.password({ message: "Password", validate: (v) => (v ? undefined : "a password is needed") });
    if (prompts.isCancel(password)) throw cancelled();
    try {
      await client.passwordLogin(username, password);
      prompts.outro(`Signed in as ${username}`);
      return;
    } catch (error) {
      if (error instanceof GatewayAuthError && error.code === "invalid_credentials" && attempt < 3) {
        prompts.log.error("Wrong username or password.");
        defaultUser = username;
        continue;
      }
      throw new CliError(`sign-in to ${target.label} failed: ${(error as Error).message}`);
    }
  }
}
