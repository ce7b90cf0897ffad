// A subagent's provider HTTP client with a handle on its current request: `reconnect` aborts that
// request's stream with a `stalled` provider error, which the provider layer's retry logic answers by
// opening a new stream (the text streamed so far is kept as the prefix). A subagent makes one model call
// at a time, so only the latest request is held.
import { ProviderError } from "../../providers/errors.ts";
import type { FetchLike } from "../../providers/http.ts";

export interface ReconnectableFetch {
  fetch: FetchLike;
  /** Aborts the current provider stream, if one is open. */
  reconnect(message: string): void;
}

export function reconnectableFetch(base: FetchLike | undefined): ReconnectableFetch {
  const send: FetchLike = base ?? ((input, init) => fetch(input, init as RequestInit));
  let current: { controller: AbortController; detach: () => void } | null = null;
  return {
    fetch(input, init) {
      current?.detach();
      const controller = new AbortController();
      const outer = init.signal ?? null;
      const follow = () => controller.abort(outer?.reason);
      if (outer?.aborted) follow();
      outer?.addEventListener("abort", follow, { once: true });
      current = { controller, detach: () => outer?.removeEventListener("abort", follow) };
      return send(input, { ...init, signal: controller.signal });
    },
    reconnect(message) {
      current?.controller.abort(new ProviderError({ kind: "stalled", code: "subagent_stalled", message }));
    },
  };
}
