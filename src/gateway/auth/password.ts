// Password hashing: Argon2id over HMAC-SHA256(pepper, password). Over-long passwords are refused before
// any work; at most `max_concurrent_hashes` run at once and a bounded queue waits behind them.
import { createHmac } from "node:crypto";
import { ProtocolError } from "../../protocol/errors.ts";

export interface PasswordPolicy {
  memory_kib: number;
  time_cost: number;
  max_password_bytes: number;
  max_concurrent_hashes: number;
}

export const MIN_PASSWORD_CHARS = 8;
/** Queue bound: waiting hash jobs beyond this fail fast with 503 instead of piling up. */
export const QUEUE_PER_SLOT = 64;

export class PasswordRuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PasswordRuleError";
  }
}

export class PasswordHasher {
  private running = 0;
  /** Waiting jobs, ordered by priority (lower first), then arrival. */
  private readonly waiting: Array<{ priority: number; go: () => void }> = [];
  private dummyHash: Promise<string> | undefined;

  constructor(private readonly pepper: Uint8Array, private readonly policy: PasswordPolicy) {}

  /** Why a new password is unacceptable, or undefined. */
  check(password: string): string | undefined {
    if (Buffer.byteLength(password, "utf8") > this.policy.max_password_bytes) return `passwords are limited to ${this.policy.max_password_bytes} bytes`;
    if ([...password].length < MIN_PASSWORD_CHARS) return `passwords need at least ${MIN_PASSWORD_CHARS} characters`;
    return undefined;
  }

  async hash(password: string): Promise<string> {
    const problem = this.check(password);
    if (problem) throw new PasswordRuleError(problem);
    return this.slot(() =>
      Bun.password.hash(this.peppered(password), { algorithm: "argon2id", memoryCost: this.policy.memory_kib, timeCost: this.policy.time_cost }),
    );
  }

  /**
   * Verifies against a stored hash; a missing hash runs a dummy verify so unknown users cost the same.
   * `priority` orders the queue when every hash slot is busy: callers pass the source's recent failure
   * count, so a flood of wrong passwords waits behind sources that have not been failing.
   */
  async verify(password: string, hash: string | undefined, priority = 0): Promise<boolean> {
    if (Buffer.byteLength(password, "utf8") > this.policy.max_password_bytes) return false;
    const target = hash ?? (await this.dummy());
    const ok = await this.slot(() => Bun.password.verify(this.peppered(password), target, "argon2id"), priority);
    return ok && hash !== undefined;
  }

  private dummy(): Promise<string> {
    this.dummyHash ??= Bun.password.hash(this.peppered(crypto.randomUUID()), {
      algorithm: "argon2id",
      memoryCost: this.policy.memory_kib,
      timeCost: this.policy.time_cost,
    });
    return this.dummyHash;
  }

  private peppered(password: string): string {
    return createHmac("sha256", this.pepper).update(password, "utf8").digest("base64");
  }

  private async slot<T>(work: () => Promise<T>, priority = 0): Promise<T> {
    if (this.running >= this.policy.max_concurrent_hashes) {
      if (this.waiting.length >= this.policy.max_concurrent_hashes * QUEUE_PER_SLOT) {
        throw new ProtocolError("unavailable", 503, "the server is busy; try again shortly", { "Retry-After": "1" });
      }
      await new Promise<void>((go) => {
        let at = this.waiting.length;
        while (at > 0 && this.waiting[at - 1]!.priority > priority) at--;
        this.waiting.splice(at, 0, { priority, go });
      });
    } else {
      this.running++;
    }
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next.go();
      else this.running--;
    }
  }
}
