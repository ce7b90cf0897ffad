// The release signing keys an agent trusts (docs/updates.md, "Signed releases"). A binary carries them
// compiled in: build.ts reads release-keys.pem and, when set at build time, the file named by
// AGENT_RELEASE_KEYS (test builds use it for their own key). Run from source, the same two places are
// read when the update runs. A compiled binary never reads keys from its environment: whoever can set a
// variable for it could otherwise make it accept their own "release" (docs/decisions-platform.md 34).
import { createHash, createPublicKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { IS_COMPILED } from "./self.ts";

export const KEYS_FILE = join(import.meta.dir, "..", "..", "release-keys.pem");
export const KEYS_ENV = "AGENT_RELEASE_KEYS";

declare const AGENT_RELEASE_KEYS: string[] | undefined;

export interface TrustedKey {
  /** The first 16 hex digits of the SHA-256 of the key's DER (SubjectPublicKeyInfo) form. */
  id: string;
  key: KeyObject;
}

export class KeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "KeyError";
  }
}

/** The id a signature line names its key by: the same for the public key and its private key. */
export function keyId(key: KeyObject): string {
  const publicKey = key.type === "private" ? createPublicKey(key) : key;
  return createHash("sha256").update(publicKey.export({ type: "spki", format: "der" })).digest("hex").slice(0, 16);
}

const PEM_BLOCK = /-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/g;

/** Every public key block in `text` (text around the blocks is commentary); each must be Ed25519. */
export function publicKeyPems(text: string, source: string): string[] {
  return [...text.matchAll(PEM_BLOCK)].map((m, i) => {
    let key: KeyObject;
    try {
      key = createPublicKey(m[0]);
    } catch {
      throw new KeyError(`public key ${i + 1} in ${source} is not a valid PEM public key`);
    }
    if (key.asymmetricKeyType !== "ed25519") throw new KeyError(`public key ${i + 1} in ${source} is ${key.asymmetricKeyType}, not ed25519`);
    return key.export({ type: "spki", format: "pem" }) as string;
  });
}

/** What a build compiles in: release-keys.pem, then the AGENT_RELEASE_KEYS file; duplicates once. */
export function buildKeyPems(env: Readonly<Record<string, string | undefined>>): string[] {
  const pems = publicKeyPems(readFileSync(KEYS_FILE, "utf8"), KEYS_FILE);
  const extra = env[KEYS_ENV];
  if (extra) {
    let text: string;
    try {
      text = readFileSync(extra, "utf8");
    } catch (error) {
      throw new KeyError(`${KEYS_ENV}=${extra} cannot be read (${(error as NodeJS.ErrnoException).code})`);
    }
    const found = publicKeyPems(text, extra);
    if (found.length === 0) throw new KeyError(`${KEYS_ENV}=${extra} holds no '-----BEGIN PUBLIC KEY-----' block`);
    pems.push(...found);
  }
  return [...new Set(pems)];
}

export function toTrustedKeys(pems: readonly string[]): TrustedKey[] {
  return pems.map((pem) => {
    const key = createPublicKey(pem);
    return { id: keyId(key), key };
  });
}

/** The keys this agent accepts release signatures from. */
export function trustedKeys(env: Readonly<Record<string, string | undefined>>): TrustedKey[] {
  if (typeof AGENT_RELEASE_KEYS === "object") return toTrustedKeys(AGENT_RELEASE_KEYS);
  return IS_COMPILED ? [] : toTrustedKeys(buildKeyPems(env));
}
