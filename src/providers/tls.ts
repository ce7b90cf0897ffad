// daemon.tls.trust_store: extra CAs trusted in addition to the default roots, for daemon-owned HTTPS.
// An unreadable or unparsable bundle is a hard error, never silently ignored.
import { readFileSync } from "node:fs";
import { X509Certificate } from "node:crypto";
import { rootCertificates } from "node:tls";
import { isAbsolute, resolve } from "node:path";

export class TrustStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TrustStoreError";
  }
}

export interface TrustStore {
  path: string;
  /** The extra CA certificates (PEM), in file order. */
  extraCas: string[];
  /** Subjects of the extra CAs, for diagnostics. */
  subjects: string[];
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Reads and checks a PEM bundle; `cwd` is the daemon working directory for relative paths. */
export function loadTrustStore(path: string, cwd: string): TrustStore {
  const full = isAbsolute(path) ? path : resolve(cwd, path);
  let text: string;
  try {
    text = readFileSync(full, "utf8");
  } catch (error) {
    throw new TrustStoreError(`daemon.tls.trust_store '${full}' cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const blocks = text.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) throw new TrustStoreError(`daemon.tls.trust_store '${full}' contains no PEM certificate`);
  const subjects = blocks.map((pem, i) => {
    try {
      return new X509Certificate(pem).subject;
    } catch {
      throw new TrustStoreError(`daemon.tls.trust_store '${full}': certificate #${i + 1} cannot be parsed`);
    }
  });
  return { path: full, extraCas: blocks, subjects };
}

/** TLS options for Bun's fetch: default roots plus the extra CAs (null store = defaults only). */
export function fetchTlsOptions(store: TrustStore | null): { ca: string[] } | undefined {
  if (!store) return undefined;
  return { ca: [...rootCertificates, ...store.extraCas] };
}
