// The gateway bootstrap file of a daemon the gateway launched: the daemon's service credential (`dsc_`)
// and where and how to reach the gateway (URL, TLS certificate fingerprint). The daemon reads it and
// deletes it at startup, so the secret does not stay on disk; then it checks in with the gateway
// (`GET /api/v1/services/identity`), which is the credential's first use and makes it active.
import { readFileSync, rmSync, statSync } from "node:fs";
import { isIP } from "node:net";
import { connect } from "node:tls";

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

/**
 * `GET path` over one TLS connection whose certificate must have the pinned fingerprint; the token is
 * written only after the check, on that same connection. Returns the HTTP status.
 */
function pinnedGet(url: URL, token: string, fingerprint: string): Promise<number> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return new Promise((resolve, reject) => {
    // SNI takes names only, never an IP address. The CA chain and the name are not checked: the pin is the trust.
    const socket = connect({ host, port: Number(url.port || 443), rejectUnauthorized: false, ...(isIP(host) ? {} : { servername: host }) }, () => {
      const peer = socket.getPeerCertificate(true);
      if (!peer.raw || fingerprintOfDer(peer.raw) !== fingerprint.toUpperCase()) {
        socket.destroy();
        reject(new BootstrapError("the gateway's TLS certificate does not match the fingerprint in the bootstrap file"));
        return;
      }
      socket.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
    });
    let head = "";
    socket.on("data", (d: Buffer) => {
      head += d.toString("latin1");
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head);
      if (status) {
        socket.destroy();
        resolve(Number(status[1]));
      }
    });
    socket.once("error", reject);
    socket.once("close", () => reject(new BootstrapError("the gateway closed the connection without an answer")));
    socket.setTimeout(10_000, () => socket.destroy(new BootstrapError("the gateway did not answer the check-in within 10s")));
  });
}

/**
 * Checks in with the gateway: the first authenticated use of the service credential (pending -> active).
 * Over TLS only the pinned certificate is trusted (the daemon reaches the gateway on loopback, which the
 * certificate may not name, and a self-signed certificate has no CA to check).
 */
export async function checkIn(bootstrap: BootstrapFile): Promise<void> {
  const url = new URL("/api/v1/services/identity", bootstrap.gateway_url);
  let status: number;
  if (url.protocol === "https:") {
    if (!bootstrap.gateway_tls_fingerprint) throw new BootstrapError("the gateway URL is https but the bootstrap file has no TLS fingerprint");
    status = await pinnedGet(url, bootstrap.service_token, bootstrap.gateway_tls_fingerprint);
  } else {
    const res = await fetch(url, { headers: { Authorization: `Bearer ${bootstrap.service_token}` }, signal: AbortSignal.timeout(10_000) });
    await res.body?.cancel();
    status = res.status;
  }
  if (status < 200 || status > 299) throw new BootstrapError(`the gateway refused the check-in (HTTP ${status})`);
}

/** The bootstrap named by the environment, taken (read and deleted); null when the gateway did not launch this daemon. */
export function takeBootstrapFromEnv(env: Record<string, string | undefined>): BootstrapFile | null {
  const path = env[BOOTSTRAP_ENV];
  return path ? takeBootstrap(path) : null;
}
