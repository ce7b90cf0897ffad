// TLS material for the gateway: configured files, else a self-signed pair under the data dir that is
// generated once (EC P-256) and reused across restarts so its fingerprint stays stable. On PostgreSQL the
// replicas behind one load balancer present one identity (clients pin its fingerprint): the first replica
// stores its self-signed pair in the database, the key sealed with a key derived from the pepper (which
// every replica has and the database does not), and every replica serves that pair.
import "reflect-metadata";
import { chmodSync, existsSync, readFileSync, statSync } from "node:fs";
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { hostname as osHostname } from "node:os";
import { join } from "node:path";
import * as x509 from "@peculiar/x509";
import { writeFileAtomic } from "../../util/atomic-write.ts";
import type { GatewayConfig } from "../config/types.ts";
import { isLoopback } from "../../util/ip.ts";
import type { GatewayDb } from "../db/handle.ts";
import { getSetting, putSettingIfAbsent } from "../db/settings.ts";

export interface TlsMaterial {
  cert: string;
  key: string;
  /** SHA-256 of the leaf certificate DER, uppercase hex with colons (as `openssl x509 -fingerprint -sha256`). */
  fingerprint: string;
  commonName: string;
  /** `shared`: the replicas' pair from the database; `shared-stored`: this start stored it there. */
  source: "configured" | "self-signed-existing" | "self-signed-generated" | "shared" | "shared-stored";
  /** Where the certificate comes from, for the start-up lines (a file, or the database). */
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

/** gateway_settings key of the replicas' shared self-signed identity (SealedIdentity as JSON). */
export const TLS_SETTING = "tls_identity";

/** The database and pepper of a gateway on PostgreSQL, whose replicas share one identity. */
export interface SharedTls {
  db: GatewayDb;
  pepper: Uint8Array;
}

/**
 * Decides whether the server runs TLS and with what: null means plaintext (loopback only). Configured files
 * always win; with `shared` (PostgreSQL) the self-signed pair is the one stored in the database.
 */
export async function resolveTls(config: GatewayConfig, dataDir: string, now: Date, host = osHostname(), shared?: SharedTls): Promise<TlsMaterial | null> {
  const { cert_file, key_file } = config.tls;
  if (cert_file && key_file) {
    const cert = readPem(cert_file, "tls.cert_file");
    const key = readPem(key_file, "tls.key_file");
    return { cert, key, fingerprint: fingerprintOf(cert, cert_file), commonName: commonNameOf(cert), source: "configured", certFile: cert_file, keyWarning: keyFileExposure(key_file) };
  }
  if (shared) return sharedIdentity(config, dataDir, now, host, shared);
  const certPath = join(dataDir, SELF_SIGNED_CERT);
  const local = readLocalPair(dataDir);
  if (local) return { ...local, fingerprint: fingerprintOf(local.cert, certPath), commonName: commonNameOf(local.cert), source: "self-signed-existing", certFile: certPath, keyWarning: null };
  const keyPath = join(dataDir, SELF_SIGNED_KEY);
  if (isLoopback(config.listen.address)) return null;
  const { cert, key } = await generateSelfSigned(host, now);
  writeFileAtomic(keyPath, key, 0o600);
  writeFileAtomic(certPath, cert, 0o644);
  return { cert, key, fingerprint: fingerprintOf(cert, certPath), commonName: commonNameOf(cert), source: "self-signed-generated", certFile: certPath, keyWarning: null };
}

/** The data dir's self-signed pair, if this host has one (its key kept 0600). */
function readLocalPair(dataDir: string): { cert: string; key: string } | null {
  const certPath = join(dataDir, SELF_SIGNED_CERT);
  const keyPath = join(dataDir, SELF_SIGNED_KEY);
  if (!existsSync(certPath) || !existsSync(keyPath)) return null;
  const cert = readPem(certPath, "self-signed certificate");
  const key = readPem(keyPath, "self-signed key");
  chmodSync(keyPath, 0o600);
  return { cert, key };
}

/**
 * The replicas' identity: the one in the database, else the first replica's own (its data dir's pair, or
 * one generated now), stored in one transaction (first writer wins, the others read it). On loopback with
 * nothing to share yet the gateway runs plaintext, as a single host does.
 */
async function sharedIdentity(config: GatewayConfig, dataDir: string, now: Date, host: string, shared: SharedTls): Promise<TlsMaterial | null> {
  let value = await getSetting(shared.db, TLS_SETTING);
  let stored = false;
  if (value === undefined) {
    const local = readLocalPair(dataDir);
    if (!local && isLoopback(config.listen.address)) return null;
    value = await putSettingIfAbsent(
      shared.db,
      TLS_SETTING,
      async () => {
        stored = true;
        return JSON.stringify(sealIdentity(local ?? (await generateSelfSigned(host, now)), shared.pepper));
      },
      now,
    );
  }
  const { cert, key } = openIdentity(value, shared.pepper);
  const where = "the gateway database (shared by every replica)";
  return { cert, key, fingerprint: fingerprintOf(cert, where), commonName: commonNameOf(cert), source: stored ? "shared-stored" : "shared", certFile: where, keyWarning: null };
}

/** The stored form: the certificate as is, the key AES-256-GCM sealed under HKDF-SHA-256(pepper, salt). */
interface SealedIdentity {
  v: 1;
  cert: string;
  key: { salt: string; iv: string; sealed: string };
}

const SEAL_INFO = "agent-gateway tls identity key v1";

function sealingKey(pepper: Uint8Array, salt: Buffer): Buffer {
  return Buffer.from(hkdfSync("sha256", pepper, salt, SEAL_INFO, 32));
}

export function sealIdentity(pair: { cert: string; key: string }, pepper: Uint8Array): SealedIdentity {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealingKey(pepper, salt), iv);
  // The certificate is the additional data: a sealed key moved under another certificate does not open.
  cipher.setAAD(Buffer.from(pair.cert));
  const sealed = Buffer.concat([cipher.update(pair.key, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return { v: 1, cert: pair.cert, key: { salt: salt.toString("base64"), iv: iv.toString("base64"), sealed: sealed.toString("base64") } };
}

export function openIdentity(value: string, pepper: Uint8Array): { cert: string; key: string } {
  const unreadable = `the TLS identity stored in the gateway database (gateway_settings ${TLS_SETTING})`;
  let stored: SealedIdentity;
  try {
    stored = JSON.parse(value) as SealedIdentity;
    if (stored.v !== 1 || typeof stored.cert !== "string" || typeof stored.key?.sealed !== "string") throw new Error("shape");
  } catch {
    throw new TlsError(`${unreadable} is not readable`);
  }
  try {
    const sealed = Buffer.from(stored.key.sealed, "base64");
    const decipher = createDecipheriv("aes-256-gcm", sealingKey(pepper, Buffer.from(stored.key.salt, "base64")), Buffer.from(stored.key.iv, "base64"));
    decipher.setAAD(Buffer.from(stored.cert));
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    const key = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]).toString("utf8");
    return { cert: stored.cert, key };
  } catch {
    throw new TlsError(`${unreadable} does not open with this host's pepper; every replica needs the pepper file the database was set up with`);
  }
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
