// Detached release signatures: `<file>.sig` beside the manifest (and each release's SHA256SUMS), one line
// per signing key, `ed25519 <key id> <base64 signature of the file's bytes>`. More than one line lets a
// release be signed with the old and the new key while a rotation is under way: a reader accepts the
// file when any line is by a key it trusts and verifies.
import { sign, verify, type KeyObject } from "node:crypto";
import { keyId, type TrustedKey } from "./release-keys.ts";

export const SIGNATURE_SUFFIX = ".sig";

const LINE = /^ed25519 ([0-9a-f]{16}) ([A-Za-z0-9+/]{86}==)$/;

export class SignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SignatureError";
  }
}

/** The signature file for `bytes`, one line per private key. */
export function signatureFile(bytes: Uint8Array, privateKeys: readonly KeyObject[]): string {
  return privateKeys.map((key) => `ed25519 ${keyId(key)} ${sign(null, bytes, key).toString("base64")}\n`).join("");
}

/** Checks `signature` (the .sig file's text) over `bytes`; returns the id of the key that verified. */
export function verifySignature(bytes: Uint8Array, signature: string, trusted: readonly TrustedKey[], source: string): string {
  if (trusted.length === 0) throw new SignatureError(`this agent was built without a release signing key (release-keys.pem held none), so it cannot verify ${source}; install a release build of agent`);
  const lines = signature.split("\n").map((l) => l.trim()).filter((l) => l !== "");
  const parsed = lines.map((line, i) => {
    const m = LINE.exec(line);
    if (!m) throw new SignatureError(`line ${i + 1} of the signature of ${source} is not 'ed25519 <16 hex digit key id> <base64 signature>'`);
    return { id: m[1]!, signature: Buffer.from(m[2]!, "base64") };
  });
  if (parsed.length === 0) throw new SignatureError(`the signature of ${source} is empty`);
  const known = parsed.filter((p) => trusted.some((t) => t.id === p.id));
  if (known.length === 0) {
    throw new SignatureError(`${source} is signed by key ${parsed.map((p) => p.id).join(", ")}, which this agent does not trust (it trusts ${trusted.map((t) => t.id).join(", ")})`);
  }
  for (const p of known) {
    if (verify(null, bytes, trusted.find((t) => t.id === p.id)!.key, p.signature)) return p.id;
  }
  throw new SignatureError(`the signature of ${source} by key ${known.map((p) => p.id).join(", ")} does not match its content: it was changed after it was signed`);
}
