// The daemon credential: `{"version": 1, "token": string}` in a file of mode 0600 inside a directory of
// mode 0700 (a file without `version` is version 1). A daemon without a loadable credential does not
// start; the launchers write a fresh one.
import { readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { timingSafeEqual } from "node:crypto";
import { writeFileAtomic } from "../util/atomic-write.ts";
import { newSecret } from "../util/ids.ts";
import { fileFormatVersion } from "../util/file-format-version.ts";

export const CREDENTIAL_FILE = "credential.json";
export const CREDENTIAL_ENV = "AGENT_DAEMON_CREDENTIAL_FILE";
/** The credential file format this binary reads and writes. */
export const CREDENTIAL_VERSION = 1;

export class CredentialError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CredentialError";
  }
}

/** Loads and checks a credential file; the message names the file and the rule, never the token. */
export function loadCredential(path: string): string {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new CredentialError(`credential file ${path} does not exist`);
  }
  if (!st.isFile()) throw new CredentialError(`credential file ${path} is not a regular file`);
  if ((st.mode & 0o077) !== 0) throw new CredentialError(`credential file ${path} has mode ${(st.mode & 0o777).toString(8)}; it must be 600 (readable by its owner only)`);
  const dirMode = statSync(dirname(path)).mode & 0o777;
  if ((dirMode & 0o077) !== 0) throw new CredentialError(`the directory of credential file ${path} has mode ${dirMode.toString(8)}; it must be 700`);
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    throw new CredentialError(`credential file ${path} is not valid JSON (expected {"token": "..."})`);
  }
  try {
    fileFormatVersion(doc, CREDENTIAL_VERSION, `credential file ${path}`);
  } catch (error) {
    throw new CredentialError((error as Error).message);
  }
  const token = (doc as { token?: unknown })?.token;
  if (typeof token !== "string") throw new CredentialError(`credential file ${path} has no string field 'token'`);
  if (token.length < 32 || !/^[\x21-\x7e]+$/.test(token)) throw new CredentialError(`the token in credential file ${path} must be at least 32 printable characters without spaces`);
  return token;
}

/** Writes a freshly generated credential (what `agent new` / `agent continue` pass to the daemon). */
export function writeFreshCredential(path: string): string {
  const token = newSecret("dmn");
  writeFileAtomic(path, `${JSON.stringify({ version: CREDENTIAL_VERSION, token })}\n`, 0o600);
  return token;
}

/** Compares a presented bearer token with the credential in constant time (also across lengths). */
export function tokenMatches(presented: string, expected: string): boolean {
  const a = new Bun.CryptoHasher("sha256").update(presented).digest();
  const b = new Bun.CryptoHasher("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}
