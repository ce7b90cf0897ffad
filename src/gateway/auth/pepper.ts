// The machine pepper: 32 random bytes generated once in the data dir (0600), unless
// `auth.password.pepper_file` names another file. It keys password HMACs and service-credential verifiers.
import { chmodSync, existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { writeFileAtomic } from "../../util/atomic-write.ts";

export const PEPPER_FILE = "pepper";

export class PepperError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PepperError";
  }
}

export function loadPepper(dataDir: string, pepperFile: string | undefined): Uint8Array {
  if (pepperFile) {
    let raw: Buffer;
    try {
      raw = readFileSync(pepperFile);
    } catch (error) {
      throw new PepperError(`cannot read auth.password.pepper_file ${pepperFile}: ${(error as NodeJS.ErrnoException).code ?? "read error"}`);
    }
    const text = raw.toString("utf8").trim();
    if (text.length < 32) throw new PepperError(`auth.password.pepper_file ${pepperFile} is too short: at least 32 characters of random data are required`);
    if ((statSync(pepperFile).mode & 0o077) !== 0) {
      throw new PepperError(`auth.password.pepper_file ${pepperFile} is readable by group or others; run: chmod 600 ${pepperFile}`);
    }
    return new TextEncoder().encode(text);
  }
  const path = join(dataDir, PEPPER_FILE);
  if (!existsSync(path)) writeFileAtomic(path, `${randomBytes(32).toString("base64url")}\n`, 0o600);
  else chmodSync(path, 0o600);
  const text = readFileSync(path, "utf8").trim();
  if (text.length < 32) throw new PepperError(`the machine pepper ${path} is damaged (too short); restore it from a backup — without it no stored password can be verified`);
  return new TextEncoder().encode(text);
}
