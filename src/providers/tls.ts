// daemon.tls.trust_store for daemon-owned HTTPS: extra CAs trusted in addition to the default roots.
// Loading and checking the bundle is the config's job (src/config/trust-store.ts); here an error is
// a hard failure (TrustStoreError) and a loaded store becomes Bun fetch TLS options.
import { rootCertificates } from "node:tls";
import { loadTrustStore as loadTrustStoreChecked } from "../config/trust-store.ts";

export class TrustStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TrustStoreError";
  }
}

/** Structurally the config's TrustStore: the resolved path and the PEM blocks. */
export interface TrustStore {
  path: string;
  certificates: string[];
}

/** Reads and checks a PEM bundle (`cwd`: the daemon working directory); throws TrustStoreError. */
export function loadTrustStore(path: string, cwd: string): TrustStore {
  const result = loadTrustStoreChecked(path, cwd);
  if ("error" in result) throw new TrustStoreError(`daemon.tls.trust_store: ${result.error}`);
  return result;
}

/** TLS options for Bun's fetch: default roots plus the extra CAs (null store = Bun's defaults). */
export function fetchTlsOptions(store: Pick<TrustStore, "certificates"> | null): { ca: string[] } | undefined {
  if (!store) return undefined;
  return { ca: [...rootCertificates, ...store.certificates] };
}
