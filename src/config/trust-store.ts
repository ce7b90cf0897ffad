// `daemon.tls.trust_store`: a PEM bundle of extra CA certificates. Unreadable or unparseable is a
// hard error, never silently ignored.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { X509Certificate } from "node:crypto";

export interface TrustStore {
  path: string;
  /** PEM blocks, ready for `tls: { ca }`. */
  certificates: string[];
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

export function loadTrustStore(path: string, cwd: string): TrustStore | { error: string } {
  const absolute = resolve(cwd, path);
  let text: string;
  try {
    text = readFileSync(absolute, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { error: `cannot read trust store ${absolute} (${code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : code === "EISDIR" ? "is a directory" : code})` };
  }
  const blocks = text.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) return { error: `trust store ${absolute} contains no PEM certificate (expected -----BEGIN CERTIFICATE----- blocks)` };
  for (const [i, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch {
      return { error: `trust store ${absolute}: certificate ${i + 1} of ${blocks.length} cannot be parsed` };
    }
  }
  return { path: absolute, certificates: blocks };
}
