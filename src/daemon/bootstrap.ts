// The gateway bootstrap file of a daemon the gateway launched: the daemon's service credential (`dsc_`)
// and where and how to reach the gateway (URL, TLS certificate fingerprint). The daemon reads it and
// deletes it at startup, so the secret does not stay on disk; then it checks in with the gateway
// (`GET /api/v1/services/identity`), which is the credential's first use and makes it active.
import { readFileSync, rmSync, statSync } from "node:fs";
import { connect, type PeerCertificate } from "node:tls";

/** Names the bootstrap file in the daemon's environment (set by the gateway supervisor). */
export const BOOTSTRAP_ENV = "AGENT_GATEWAY_BOOTSTRAP_FILE";

export interface BootstrapFile {
  version: 1;
  session_id: string;
  generation_id: string;
  /** `dsc_<generation>.<secret>` */
  service_token: string;
  /** The gateway as this machine reaches it (loopback). */
  gateway_url: string;
  /** SHA-256 of the gateway's TLS certificate (uppercase hex with colons); null when it runs plaintext. */
  gateway_tls_fingerprint: string | null;
}

export class BootstrapError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BootstrapError";
  }
}

/** Reads the bootstrap file and deletes it (also when it is invalid); the message never holds the token. */
export function takeBootstrap(path: string): BootstrapFile {
  let text: string;
  try {
    if ((statSync(path).mode & 0o077) !== 0) throw new BootstrapError(`bootstrap file ${path} must have mode 600`);
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (error instanceof BootstrapError) throw error;
    throw new BootstrapError(`cannot read bootstrap file ${path} (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  } finally {
    rmSync(path, { force: true });
  }
  let doc: Partial<BootstrapFile>;
  try {
    doc = JSON.parse(text) as Partial<BootstrapFile>;
  } catch {
    throw new BootstrapError(`bootstrap file ${path} is not valid JSON`);
  }
  for (const key of ["session_id", "generation_id", "service_token", "gateway_url"] as const) {
    if (typeof doc[key] !== "string" || doc[key] === "") throw new BootstrapError(`bootstrap file ${path} has no string field '${key}'`);
  }
  if (!doc.service_token!.startsWith("dsc_")) throw new BootstrapError(`bootstrap file ${path}: 'service_token' is not a daemon service credential`);
  if (doc.gateway_tls_fingerprint !== null && typeof doc.gateway_tls_fingerprint !== "string") throw new BootstrapError(`bootstrap file ${path}: 'gateway_tls_fingerprint' must be a string or null`);
  return { version: 1, ...(doc as Omit<BootstrapFile, "version">) };
}

function fingerprintOfDer(der: Buffer): string {
  return new Bun.CryptoHasher("sha256").update(der).digest("hex").toUpperCase().match(/../g)!.join(":");
}

/** The PEM of the gateway's certificate when its fingerprint is the pinned one (the trust anchor for fetch). */
async function pinnedPem(url: URL, fingerprint: string): Promise<string> {
  const cert = await new Promise<PeerCertificate>((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port || 443), rejectUnauthorized: false, servername: url.hostname }, () => {
      const peer = socket.getPeerCertificate(true);
      socket.end();
      resolve(peer);
    });
    socket.once("error", reject);
    socket.setTimeout(5000, () => socket.destroy(new Error("TLS handshake timed out")));
  });
  if (!cert.raw || fingerprintOfDer(cert.raw) !== fingerprint.toUpperCase()) throw new BootstrapError("the gateway's TLS certificate does not match the fingerprint in the bootstrap file");
  return `-----BEGIN CERTIFICATE-----\n${cert.raw.toString("base64").match(/.{1,64}/g)!.join("\n")}\n-----END CERTIFICATE-----\n`;
}

/**
 * Checks in with the gateway: the first authenticated use of the service credential (pending -> active).
 * Over TLS only the pinned certificate is trusted; its name is not checked (the daemon reaches the gateway
 * on loopback, which the certificate does not name).
 */
export async function checkIn(bootstrap: BootstrapFile, signal?: AbortSignal): Promise<void> {
  const url = new URL("/api/v1/services/identity", bootstrap.gateway_url);
  const init: RequestInit & { tls?: unknown } = { headers: { Authorization: `Bearer ${bootstrap.service_token}` }, signal };
  if (url.protocol === "https:") {
    if (!bootstrap.gateway_tls_fingerprint) throw new BootstrapError("the gateway URL is https but the bootstrap file has no TLS fingerprint");
    const pem = await pinnedPem(url, bootstrap.gateway_tls_fingerprint);
    init.tls = { ca: pem, checkServerIdentity: (_host: string, peer: PeerCertificate) => (peer.raw && fingerprintOfDer(peer.raw) === bootstrap.gateway_tls_fingerprint!.toUpperCase() ? undefined : new Error("gateway certificate changed")) };
  }
  const res = await fetch(url, init);
  await res.body?.cancel();
  if (!res.ok) throw new BootstrapError(`the gateway refused the check-in (HTTP ${res.status})`);
}

/** The bootstrap named by the environment, taken (read and deleted); null when the gateway did not launch this daemon. */
export function takeBootstrapFromEnv(env: Record<string, string | undefined>): BootstrapFile | null {
  const path = env[BOOTSTRAP_ENV];
  return path ? takeBootstrap(path) : null;
}
