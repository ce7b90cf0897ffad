// daemon.retry: which failures are retried, how long to wait, and the runner that retries a call,
// emits a `retry` event before each wait, and carries partial content into the next attempt.
import type { Clock } from "../util/clock.ts";
import type { AssembledResponse, StreamEvent } from "./events.ts";
import { ProviderError } from "./errors.ts";
import { ResponseAssembler } from "./assemble.ts";
import type { RetrySettings } from "./settings.ts";

/** Rate limits without a server hint: this schedule, for any positive max_retries. */
export const RATE_LIMIT_SCHEDULE_MS = [30_000, 60_000, 120_000, 240_000, 480_000, 960_000] as const;

const NEVER_RETRY_STATUS = new Set([400, 401, 403, 404]);

/** Whether the failure is transient by our table (before the server's x-should-retry directive). */
export function isRetryable(error: ProviderError): boolean {
  if (error.status !== null && NEVER_RETRY_STATUS.has(error.status)) return false;
  if (error.status !== null && (error.status === 408 || error.status === 409 || error.status === 429 || error.status >= 500)) return true;
  return error.kind === "rate_limited" || error.kind === "overloaded" || error.kind === "server" || error.kind === "network" || error.kind === "stalled";
}

export interface RetryCounters {
  /** Retries already made that counted against max_retries. */
  general: number;
  /** Retries already made from the fixed rate-limit schedule. */
  rateLimit: number;
}

export type RetryPlan = { retry: false } | { retry: true; delayMs: number; schedule: "hint" | "rate_limit" | "backoff" };

/** Decides the next step for `error`; `random` in [0,1) supplies the jitter. */
export function planRetry(error: ProviderError, settings: RetrySettings, counters: RetryCounters, random: () => number): RetryPlan {
  if (settings.max_retries <= 0) return { retry: false };
  if (error.kind === "cancelled") return { retry: false };
  const retryable = error.shouldRetry ?? isRetryable(error);
  if (!retryable) return { retry: false };
  const rateLimited = error.kind === "rate_limited" || error.status === 429;
  if (rateLimited && error.retryAfterMs === null) {
    const step = RATE_LIMIT_SCHEDULE_MS[counters.rateLimit];
    return step === undefined ? { retry: false } : { retry: true, delayMs: step, schedule: "rate_limit" };
  }
  if (counters.general >= settings.max_retries) return { retry: false };
  // Provider hints are honoured as given, never capped.
  if (error.retryAfterMs !== null) return { retry: true, delayMs: error.retryAfterMs, schedule: "hint" };
  const computed = Math.min(settings.max_computed_delay_ms, settings.base_delay_ms * 2 ** counters.general);
  // Jitter takes up to 25% off, so the cap is never exceeded.
  return { retry: true, delayMs: Math.round(computed * (1 - 0.25 * random())), schedule: "backoff" };
}

export interface AttemptRecord {
  attempt: number;
  started_at: number;
  ended_at: number;
  kind: string;
  status: number | null;
  code: string;
  request_id: string | null;
  delay_ms: number | null;
}

export interface RetryRunOptions {
  settings: RetrySettings;
  clock: Clock;
  random?: () => number;
  signal?: AbortSignal;
  /** Starts attempt `attempt` (1-based); `partial` is the content kept from earlier attempts, to put in context. */
  attempt: (attempt: number, partial: AssembledResponse | null) => AsyncIterable<StreamEvent>;
  /** Called once when the call finally fails, with every attempt's record (for the autopsy report). */
  onFinalFailure?: (error: ProviderError, history: AttemptRecord[], partial: AssembledResponse | null) => void;
}

/** Runs a provider call with retries. Throws the last ProviderError when retries are exhausted. */
export async function* streamWithRetry(opts: RetryRunOptions): AsyncGenerator<StreamEvent> {
  const random = opts.random ?? Math.random;
  const counters: RetryCounters = { general: 0, rateLimit: 0 };
  const history: AttemptRecord[] = [];
  let partial: AssembledResponse | null = null;
  for (let attempt = 1; ; attempt++) {
    const started = opts.clock.now();
    const assembler = new ResponseAssembler();
    try {
      for await (const event of opts.attempt(attempt, partial)) {
        assembler.push(event);
        yield event;
      }
      return;
    } catch (caught) {
      const error =
        caught instanceof ProviderError
          ? caught
          : new ProviderError({ kind: "network", code: "unexpected", message: `provider call failed: ${(caught as Error)?.message ?? String(caught)}` });
      if (assembler.hasContent()) partial = mergePartial(partial, assembler.snapshot());
      const plan = opts.signal?.aborted ? ({ retry: false } as const) : planRetry(error, opts.settings, counters, random);
      history.push({
        attempt,
        started_at: started,
        ended_at: opts.clock.now(),
        kind: error.kind,
        status: error.status,
        code: error.code,
        request_id: error.requestId,
        delay_ms: plan.retry ? plan.delayMs : null,
      });
      if (!plan.retry) {
        opts.onFinalFailure?.(error, history, partial);
        throw error;
      }
      if (plan.schedule === "rate_limit") counters.rateLimit++;
      else counters.general++;
      yield {
        type: "retry",
        attempt: attempt + 1,
        max_retries: plan.schedule === "rate_limit" ? RATE_LIMIT_SCHEDULE_MS.length : opts.settings.max_retries,
        delay_ms: plan.delayMs,
        status: error.status,
        code: error.code,
        reason: error.message,
      };
      await opts.clock.sleep(plan.delayMs, opts.signal);
    }
  }
}

/** Partial content accumulates across several failed attempts of one call. */
function mergePartial(earlier: AssembledResponse | null, next: AssembledResponse): AssembledResponse {
  if (!earlier) return next;
  return { ...next, id: earlier.id ?? next.id, model: earlier.model ?? next.model, parts: [...earlier.parts, ...next.parts] };
}
