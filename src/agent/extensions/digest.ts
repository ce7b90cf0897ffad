// The content digest an approval is bound to: SHA-256 over every file of the extension directory (path,
// kind and bytes, in path order). Changing any file, even without a new version, asks again. `.git` is
// left out (fetching changes it, not the code); a symbolic link counts by its target text.
import { lstatSync, readFileSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";

/** Beyond these an extension is refused rather than hashed for minutes. */
export const DIGEST_LIMITS = { files: 5000, bytes: 50 * 1024 * 1024 };

export class DigestError extends Error {}

export function extensionDigest(dir: string): string {
  const hasher = new Bun.CryptoHasher("sha256");
  let files = 0;
  let bytes = 0;
  const walk = (rel: string) => {
    const here = rel === "" ? dir : join(dir, rel);
    for (const name of readdirSync(here).sort()) {
      if (rel === "" && name === ".git") continue;
      const relPath = rel === "" ? name : `${rel}/${name}`;
      const full = join(dir, relPath);
      const stat = lstatSync(full);
      if (++files > DIGEST_LIMITS.files) throw new DigestError(`${dir} holds more than ${DIGEST_LIMITS.files} files; too many to verify`);
      if (stat.isSymbolicLink()) hasher.update(`link\0${relPath}\0${readlinkSync(full)}\0`);
      else if (stat.isDirectory()) {
        hasher.update(`dir\0${relPath}\0`);
        walk(relPath);
      } else if (stat.isFile()) {
        bytes += stat.size;
        if (bytes > DIGEST_LIMITS.bytes) throw new DigestError(`${dir} holds more than ${DIGEST_LIMITS.bytes / 1024 / 1024} MB; too much to verify`);
        hasher.update(`file\0${relPath}\0${stat.size}\0`);
        hasher.update(readFileSync(full));
      }
    }
  };
  walk("");
  return `sha256:${hasher.digest("hex")}`;
}
