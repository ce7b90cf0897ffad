// TLS material for the gateway: configured files, else a self-signed pair under the data dir that is
// generated once (EC P-256) and reused across restarts so its fingerprint stays stable.
import "reflect-metadata";
import { chmodSync, existsSync, readFileSync, statSync } from "node:fs";
import { hostname as osHostname } from "node:os";
import { join } from "node:path";
import * as x509 from "@peculiar/x509";
import { writeFileAtomic } from "../../util/atomic-write.ts";
import type { GatewayConfig } from "../config/types.ts";
import { isLoopback } from "../../util/ip.ts";

export interface TlsMaterial {
  cert: string;
  key: string;
  /** SHA-256 of the leaf certificate DER, uppercase hex with colons (as `openssl x509 -fingerprint -sha256`). */
  fingerprint: string;
  commonName: string;
  source: "configured" | "self-signed-existing" | "self-signed-generated";
  certFile: string;
  /** Set when the configured key file is readable by its group or others (serve warns loudly at start). */
  keyWarning: string | null;
}

export class TlsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TlsError";
  }
}

export const SELF_SIGNED_CERT = "tls/self-signed-cert.pem";
export const SELF_SIGNED_KEY = "tls/self-signed-key.pem";

/** Decides whether the server runs TLS and with what: null means plaintext (loopback only). */
export async function resolveTls(config: GatewayConfig, dataDir: string, now: Date, host = osHostname()): Promise<TlsMaterial | null> {
  const { cert_file, key_file } = config.tls;
  if (cert_file && key_file) {
    const cert = readPem(cert_file, "tls.cert_file");
    const key = readPem(key_file, "tls.key_file");
    return { cert, key, fingerprint: fingerprintOf(cert, cert_file), commonName: commonNameOf(cert), source: "configured", certFile: cert_file, keyWarning: keyFileExposure(key_file) };
  }
  const certPath = join(dataDir, SELF_SIGNED_CERT);
  const keyPath = join(dataDir, SELF_SIGNED_KEY);
  if (existsSync(certPath) && existsSync(keyPath)) {
    const cert = readPem(certPath, "self-signed certificate");
    const key = readPem(keyPath, "self-signed key");
    chmodSync(keyPath, 0o600);
    return { cert, key, fingerprint: fingerprintOf(cert, certPath), commonName: commonNameOf(cert), source: "self-signed-existing", certFile: certPath, keyWarning: null };
  }
  if (isLoopback(config.listen.address)) return null;
  const { cert, key } = await generateSelfSigned(host, now);
  writeFileAtomic(keyPath, key, 0o600);
  writeFileAtomic(certPath, cert, 0o644);
  return { cert, key, fingerprint: fingerprintOf(cert, certPath), commonName: commonNameOf(cert), source: "self-signed-generated", certFile: certPath, keyWarning: null };
}

/**
 * Why a key file is not private, or null when only its owner can read it. The gateway's own self-signed key
 * is kept 0600; a configured key is the operator's file, so it is reported, not changed.
 */
export function keyFileExposure(path: string): string | null {
  let mode: number;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    return null;
  }
  if ((mode & 0o077) === 0) return null;
  const who = mode & 0o007 ? "every account on this machine" : "every member of its group";
  return `the TLS key file ${path} has mode ${mode.toString(8).padStart(3, "0")}: ${who} can read the gateway's private key and impersonate the gateway; make it readable by its owner only: chmod 600 ${path}`;
}

function readPem(path: string, what: string): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new TlsError(`cannot read ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? "read error"}`);
  }
  if (!text.includes("-----BEGIN")) throw new TlsError(`${what} ${path} is not a PEM file`);
  return text;
}

export function fingerprintOf(certPem: string, path = "certificate"): string {
  try {
    const cert = new x509.X509Certificate(certPem);
    const hex = new Bun.CryptoHasher("sha256").update(new Uint8Array(cert.rawData)).digest("hex");
    return hex.toUpperCase().match(/../g)!.join(":");
  } catch {
    throw new TlsError(`${path} does not hold a readable X.509 certificate`);
  }
}

function commonNameOf(certPem: string): string {
  const cert = new x509.X509Certificate(certPem);
  return /CN=([^,]+)/.exec(cert.subject)?.[1] ?? cert.subject;
}

async function generateSelfSigned(host: string, now: Date): Promise<{ cert: string; key: string }> {
  x509.cryptoProvider.set(crypto);
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
  const keys = (await crypto.subtle.generateKey(alg, true, ["sign", "verify"])) as CryptoKeyPair;
  const names = [...new Set([host, "localhost"])].map((value) => ({ type: "dns" as const, value }));
  const serial = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex").replace(/^[89a-f]/, "1");
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial,
    name: `CN=Agent Gateway for ${host.replace(/[,=+<>#;"\\]/g, "-")}`,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + 825 * 24 * 3600 * 1000),
    signingAlgorithm: alg,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([...names, { type: "ip", value: "127.0.0.1" }, { type: "ip", value: "::1" }]),
    ],
  });
  const pkcs8 = await crypto.subtle.exportKey("pkcs8", keys.privateKey);
  const b64 = Buffer.from(pkcs8).toString("base64").match(/.{1,64}/g)!.join("\n");
  return { cert: cert.toString("pem"), key: `-----BEGIN PRIVATE KEY-----\n${b64}\n-----END PRIVATE KEY-----\n` };
}

/** Startup rule: a non-loopback listen address must run TLS. */
export function assertListenSecure(address: string, tls: TlsMaterial | null): void {
  if (!tls && !isLoopback(address)) {
    throw new TlsError(`listen.address ${address} is not loopback and requires TLS; set tls.cert_file and tls.key_file or let the gateway generate a self-signed pair`);
  }
}
