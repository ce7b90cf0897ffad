// PAM authentication (Linux with glibc only): libpam runs in Worker threads so a slow PAM stack
// never blocks the server. A missing /etc/pam.d/<service> is a system error, never a fallback to "other".
import { existsSync } from "node:fs";
import { join } from "node:path";

export type PamOutcome = "success" | "failure" | "error";

export interface PamAuthenticator {
  authenticate(service: string, user: string, password: string): Promise<PamOutcome>;
  close(): void;
}

export const PAM_DIR = "/etc/pam.d";
const LIBPAM_PATHS = ["/lib/x86_64-linux-gnu/libpam.so.0", "/usr/lib/x86_64-linux-gnu/libpam.so.0", "/lib/aarch64-linux-gnu/libpam.so.0", "/usr/lib/aarch64-linux-gnu/libpam.so.0", "/lib64/libpam.so.0", "/usr/lib64/libpam.so.0", "/usr/lib/libpam.so.0"];

/** Why PAM is unavailable here, or undefined when it can be used. */
export function pamUnavailableReason(): string | undefined {
  if (process.platform !== "linux") return `PAM is supported on Linux only (this is ${process.platform})`;
  const report = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  if (!report?.glibcVersionRuntime) return "PAM needs glibc (this system's C library is not glibc)";
  if (!LIBPAM_PATHS.some((p) => existsSync(p))) return "libpam.so.0 is not installed";
  return undefined;
}

/** What is wrong with a PAM service's configuration file, or undefined when it is present. */
export function pamServiceProblem(service: string, pamDir = PAM_DIR): string | undefined {
  const file = join(pamDir, service);
  if (!existsSync(file)) return `${file} is missing: PAM logins through service '${service}' fail (503) until it exists (docs/gateway.md, PAM)`;
  return undefined;
}

const POOL_SIZE = 2;

/**
 * The worker module: beside this file when running from source; inside the compiled binary it is a
 * separate entrypoint (see build.ts) under /$bunfs/root, at its path relative to the entrypoints' common root.
 */
function workerUrl(): string {
  if (!import.meta.url.includes("$bunfs")) return new URL("./pam-worker.ts", import.meta.url).href;
  const candidates = ["/$bunfs/root/gateway/auth/pam-worker.js", "/$bunfs/root/src/gateway/auth/pam-worker.js"];
  return candidates.find((c) => existsSync(c)) ?? candidates[0]!;
}
const TIMEOUT_MS = 30_000;

export class WorkerPam implements PamAuthenticator {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, { resolve: (o: PamOutcome) => void; timer: Timer }>();
  private nextId = 1;
  private turn = 0;

  constructor(private readonly pamDir = PAM_DIR) {}

  async authenticate(service: string, user: string, password: string): Promise<PamOutcome> {
    if (!existsSync(join(this.pamDir, service))) return "error";
    const id = this.nextId++;
    const worker = this.worker();
    return new Promise<PamOutcome>((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve("error");
      }, TIMEOUT_MS);
      this.pending.set(id, { resolve, timer });
      worker.postMessage({ id, service, user, password });
    });
  }

  close(): void {
    for (const w of this.workers) w.terminate();
    this.workers.length = 0;
    for (const [, p] of this.pending) {
      clearTimeout(p.timer);
      p.resolve("error");
    }
    this.pending.clear();
  }

  private worker(): Worker {
    if (this.workers.length < POOL_SIZE) {
      const w = new Worker(workerUrl());
      w.onmessage = (event: MessageEvent<{ id: number; outcome: PamOutcome }>) => {
        const p = this.pending.get(event.data.id);
        if (!p) return;
        this.pending.delete(event.data.id);
        clearTimeout(p.timer);
        p.resolve(event.data.outcome);
      };
      w.onerror = () => {
        for (const [id, p] of this.pending) {
          clearTimeout(p.timer);
          p.resolve("error");
          this.pending.delete(id);
        }
      };
      (w as Worker & { unref(): void }).unref();
      this.workers.push(w);
      return w;
    }
    return this.workers[this.turn++ % this.workers.length]!;
  }
}
