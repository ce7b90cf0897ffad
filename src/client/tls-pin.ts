// Transport to a gateway by URL scheme (gateway.md, Command-line surface and client rules 1-2):
// `http://` only to loopback; `https://` validates against the system CAs first, and a self-signed
// certificate is trusted on first use after the person confirms its SHA-256 fingerprint and common name.
// The pin is stored per hostname (not per port). A stored pin wins over CA validation; a different
// certificate is a mismatch that needs a fresh confirmation, and without one (no `confirm`: a
// non-interactive run) it is refused with both fingerprints. Expiry and hostname checks always stay on.
//
// Bun trap (STACK-NOTES): with `rejectUnauthorized: false` Bun never calls `checkServerIdentity`, so a pin
// written that way checks nothing. The pinned fetch passes the pinned certificate as its only CA and keeps
// verification on; `checkServerIdentity` adds the hostname check and the exact fingerprint comparison.
import { chmodSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import tls, { type PeerCertificate } from "node:tls";
import { dataRoot, type Env } from "../config/files.ts";
import { isLoopback } from "../util/ip.ts";
import { writeFileAtomic } from "../util/atomic-write.ts";

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface ServerCertificate {
  /** SHA-256 of the DER, uppercase hex with colons (as `openssl x509 -fingerprint -sha256`). */
  fingerprint: string;
  commonName: string;
  pem: string;
  validTo: string;
}

export interface StoredPin {
  host: string;
  fingerprint: string;
  common_name: string;
  certificate: string;
  pinned_at: string;
}

export type TrustQuestion =
  | { kind: "first_contact"; host: string; certificate: ServerCertificate }
  | { kind: "changed"; host: string; certificate: ServerCertificate; pinned: { fingerprint: string; commonName: string } };

export interface TransportOptions {
  env: Env;
  /** Asks the person whether to trust a certificate. Absent (non-interactive): every question is declined. */
  confirm?: (question: TrustQuestion) => Promise<boolean>;
  now?: () => number;
  /** Handshake timeout of the certificate probe. */
  timeoutMs?: number;
}

export type TlsPinErrorCode = "plaintext_refused" | "untrusted_certificate" | "certificate_changed" | "certificate_invalid" | "unreachable";

export class TlsPinError extends Error {
  constructor(readonly code: TlsPinErrorCode, message: string) {
    super(message);
    this.name = "TlsPinError";
  }
}

/** `localhost`, 127.0.0.0/8, ::1 (brackets allowed). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || isLoopback(bare);
}

/** Where pins live: `<data root>/gateway-client/fingerprints/<hostname>.json`, 0600 in a 0700 directory. */
export class PinStore {
  readonly dir: string;

  constructor(env: Env) {
    this.dir = join(dataRoot(env), "gateway-client", "fingerprints");
  }

  pathFor(host: string): string {
    return join(this.dir, `${host.toLowerCase().replace(/[^a-z0-9.-]/g, "_")}.json`);
  }

  load(host: string): StoredPin | undefined {
    const path = this.pathFor(host);
    if (!existsSync(path)) return undefined;
    try {
      const pin = JSON.parse(readFileSync(path, "utf8")) as StoredPin;
      return typeof pin.fingerprint === "string" && typeof pin.certificate === "string" ? pin : undefined;
    } catch {
      return undefined;
    }
  }

  save(host: string, cert: ServerCertificate, now: number): StoredPin {
    const pin: StoredPin = { host, fingerprint: cert.fingerprint, common_name: cert.commonName, certificate: cert.pem, pinned_at: new Date(now).toISOString() };
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    writeFileAtomic(this.pathFor(host), `${JSON.stringify(pin, null, 2)}\n`, 0o600);
    return pin;
  }
}

function toPem(der: Buffer): string {
  return `-----BEGIN CERTIFICATE-----\n${der.toString("base64").match(/.{1,64}/g)!.join("\n")}\n-----END CERTIFICATE-----\n`;
}

export function fingerprintOfDer(der: Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(der).digest("hex").toUpperCase().match(/../g)!.join(":");
}

interface Probe {
  cert: ServerCertificate;
  peer: PeerCertificate;
  /** Whether the system CAs accept the chain (the hostname is checked separately). */
  caValid: boolean;
}

/** One TLS handshake that reads the server's certificate without trusting it. */
function probe(host: string, port: number, timeoutMs: number): Promise<Probe> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host, port, servername: isIpLiteral(host) ? undefined : host, rejectUnauthorized: false });
    const timer = setTimeout(() => fail(new Error(`no TLS handshake within ${timeoutMs} ms`)), timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(new TlsPinError("unreachable", `cannot reach ${host}:${port} over TLS: ${error.message}`));
    };
    socket.once("error", fail);
    socket.once("secureConnect", () => {
      clearTimeout(timer);
      const peer = socket.getPeerCertificate(true);
      socket.removeListener("error", fail);
      socket.on("error", () => {});
      socket.destroy();
      if (!peer?.raw) return reject(new TlsPinError("unreachable", `${host}:${port} presented no certificate`));
      const cn = peer.subject?.CN;
      resolve({
        peer,
        caValid: socket.authorized,
        cert: { fingerprint: fingerprintOfDer(peer.raw), commonName: (Array.isArray(cn) ? cn[0] : cn) ?? "(no common name)", pem: toPem(peer.raw), validTo: peer.valid_to },
      });
    });
  });
}

/** The certificate `host:port` presents, read in one handshake that trusts nothing (a host agent compares it with its pin). */
export async function presentedCertificate(host: string, port: number, timeoutMs = 10_000): Promise<ServerCertificate> {
  return (await probe(host, port, timeoutMs)).cert;
}

function isIpLiteral(host: string): boolean {
  return /^[0-9.]+$/.test(host) || host.includes(":");
}

/** Expiry and hostname, checked before a person is asked to trust anything. */
function assertUsable(host: string, probed: Probe, now: number): void {
  const { peer } = probed;
  if (Date.parse(peer.valid_to) < now) throw new TlsPinError("certificate_invalid", `the certificate of ${host} expired on ${peer.valid_to}`);
  if (Date.parse(peer.valid_from) > now) throw new TlsPinError("certificate_invalid", `the certificate of ${host} is not valid before ${peer.valid_from}`);
  const mismatch = tls.checkServerIdentity(host, peer);
  if (mismatch) throw new TlsPinError("certificate_invalid", `the certificate is not valid for ${host}: ${mismatch.message}`);
}

/** A fetch that accepts exactly the pinned certificate, with expiry and hostname checks on. */
export function pinnedFetch(pin: StoredPin): FetchLike {
  const checkServerIdentity = (host: string, cert: PeerCertificate): Error | undefined => {
    const identity = tls.checkServerIdentity(host, cert);
    if (identity) return identity;
    const seen = cert.raw ? fingerprintOfDer(cert.raw) : cert.fingerprint256;
    return seen === pin.fingerprint ? undefined : new Error(`certificate fingerprint ${seen} is not the pinned ${pin.fingerprint}`);
  };
  return (input, init) => fetch(input, { ...init, tls: { ca: pin.certificate, checkServerIdentity } } as RequestInit);
}

/**
 * The fetch to use for `baseUrl`, deciding trust once: plaintext to loopback, CA-validated HTTPS, or the
 * pinned certificate (asking through `confirm` on first contact or after a change).
 */
export async function gatewayTransport(baseUrl: string, options: TransportOptions): Promise<FetchLike> {
  const url = new URL(baseUrl);
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const plain: FetchLike = (input, init) => fetch(input, init);
  if (url.protocol === "http:") {
    if (isLoopbackHost(host)) return plain;
    throw new TlsPinError("plaintext_refused", `plaintext http:// is allowed only to loopback (127.0.0.1, ::1, localhost); use https://${url.host}`);
  }
  if (url.protocol !== "https:") throw new TlsPinError("plaintext_refused", `unsupported scheme ${url.protocol} (use https://, or http:// to loopback)`);
  const now = (options.now ?? Date.now)();
  const port = Number(url.port || 443);
  const store = new PinStore(options.env);
  const pin = store.load(host);
  const probed = await probe(host, port, options.timeoutMs ?? 10_000);
  if (pin && probed.cert.fingerprint === pin.fingerprint) return pinnedFetch(pin);
  assertUsable(host, probed, now);
  if (!pin && probed.caValid) return plain;
  const question: TrustQuestion = pin
    ? { kind: "changed", host, certificate: probed.cert, pinned: { fingerprint: pin.fingerprint, commonName: pin.common_name } }
    : { kind: "first_contact", host, certificate: probed.cert };
  const accepted = options.confirm ? await options.confirm(question) : false;
  if (!accepted) {
    if (pin) {
      throw new TlsPinError("certificate_changed", `the certificate of ${host} CHANGED since it was trusted; refusing to connect.\n  pinned:    ${pin.fingerprint} (CN ${pin.common_name})\n  presented: ${probed.cert.fingerprint} (CN ${probed.cert.commonName})\nIf the gateway's certificate was replaced on purpose, run interactively to trust the new one, or remove ${store.pathFor(host)}.`);
    }
    throw new TlsPinError("untrusted_certificate", `the certificate of ${host} is not signed by a trusted CA (self-signed?) and was not trusted: SHA-256 ${probed.cert.fingerprint}, CN ${probed.cert.commonName}${options.confirm ? "" : "; run interactively to confirm it"}`);
  }
  return pinnedFetch(store.save(host, probed.cert, now));
}

/** The question as a person reads it: what is being trusted and why it is asked. */
export function describeTrustQuestion(q: TrustQuestion): string {
  const { fingerprint, commonName } = q.certificate;
  if (q.kind === "first_contact") {
    return [
      `The gateway ${q.host} presents a certificate that no trusted CA signed (first contact).`,
      `  SHA-256 fingerprint: ${fingerprint}`,
      `  Common name:         ${commonName}`,
      "Compare the fingerprint with the one the gateway printed at startup before trusting it.",
    ].join("\n");
  }
  return [
    `WARNING: the certificate of ${q.host} CHANGED since it was trusted. Someone may be intercepting the connection.`,
    `  Pinned fingerprint:  ${q.pinned.fingerprint} (CN ${q.pinned.commonName})`,
    `  New fingerprint:     ${fingerprint} (CN ${commonName})`,
  ].join("\n");
}
