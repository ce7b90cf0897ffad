// The entry point the engine uses: one provider call with retries, stall/lifetime supervision,
// partial content carried into retries, and an autopsy report when it finally fails.
import { streamOnce, type ProviderCallDeps } from "./client.ts";
import type { AssembledResponse, StreamEvent } from "./events.ts";
import { buildAutopsyReport, writeAutopsyReport } from "./autopsy.ts";
import type { ProviderRequest } from "./request.ts";
import type { ResolvedProvider } from "./resolve.ts";
import { streamWithRetry } from "./retry.ts";
import { scriptedProvider } from "./scripted-server.ts";
import type { RetrySettings } from "./settings.ts";

/** Text the engine sends after a `max_lifetime` cut to let the model continue where it stopped. */
export const CONTINUATION_PROMPT =
  "Your previous response was cut off because the stream reached its maximum duration. Continue exactly where you stopped, without repeating what you already wrote.";

export interface ProviderCallOptions {
  provider: ResolvedProvider;
  retry: RetrySettings;
  deps: ProviderCallDeps & {
    random?: () => number;
    /** logging.provider_autopsy: when enabled, reports go to the session directory. */
    autopsy?: { enabled: boolean; sessionDir: string } | null;
    /** Called after a report is written (path) or could not be written (error); never masks the provider error. */
    onAutopsy?: (result: { path: string } | { error: Error }) => void;
    /** Wraps each call's events, the engine's telemetry span (model, tokens, retries); absent: none. */
    traceCall?: ProviderCallHook;
  };
  /**
   * Builds the request for an attempt. `partial` is the content kept from earlier failed attempts
   * (a stall or a cut stream): the engine puts it in context as the assistant's prefix.
   */
  buildRequest: (partial: AssembledResponse | null) => ProviderRequest;
  signal?: AbortSignal;
}

/** What a span hook learns of a call; `scope` is the deps object the call was given. */
export interface ProviderCallInfo {
  provider: string;
  protocol: string;
  /** The request's model, known once the first attempt is built. */
  model: () => string;
  scope: object;
}

/** Wraps a call's event stream (a telemetry span): passed in, so providers/ imports no telemetry. */
export type ProviderCallHook = (info: ProviderCallInfo, events: AsyncGenerator<StreamEvent>) => AsyncGenerator<StreamEvent>;

export function callProvider(opts: ProviderCallOptions): AsyncGenerator<StreamEvent> {
  const { provider, deps } = opts;
  const auth = provider.settings.auth;
  const secrets = auth?.type === "static_key" ? [auth.key.trim()] : [];
  let model = "";
  const events = streamWithRetry({
    settings: opts.retry,
    clock: deps.clock,
    random: deps.random,
    signal: opts.signal,
    attempt: (_n, partial) => {
      const request = opts.buildRequest(partial);
      model = request.model;
      return streamOnce(provider.protocol === "test" ? scriptedProvider(provider, deps.cwd ?? process.cwd()) : provider, request, deps, opts.signal);
    },
    onFinalFailure: (error, history, partial) => {
      if (!deps.autopsy?.enabled) return;
      const report = buildAutopsyReport(
        { provider: provider.name, protocol: provider.protocol, model, endpoint_origin: provider.streamUrl ? new URL(provider.streamUrl).origin : null },
        error,
        history,
        partial !== null,
      );
      try {
        deps.onAutopsy?.({ path: writeAutopsyReport(deps.autopsy.sessionDir, report, secrets) });
      } catch (error) {
        deps.onAutopsy?.({ error: error as Error });
      }
    },
  });
  return deps.traceCall ? deps.traceCall({ provider: provider.name, protocol: provider.protocol, model: () => model, scope: deps }, events) : events;
}
