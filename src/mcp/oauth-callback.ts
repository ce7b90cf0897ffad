// The OAuth redirect listener for tool servers: a loopback HTTP server on its own port (ephemeral unless a
// fixed loopback URI is configured), separate from the daemon's authenticated surface. The browser's
// redirect carries no bearer token, so the `state` parameter is what ties a callback to our request.
import type { Server } from "bun";

export interface CallbackResult {
  code: string;
  state: string | null;
}

export interface CallbackListener {
  redirectUri: string;
  /** Resolves with the next callback whose `state` is accepted by `expectState`. */
  next(expectState: () => string | undefined): Promise<CallbackResult>;
  close(): void;
}

const DONE_PAGE = "<!doctype html><title>Authorized</title><p>Authorization complete. You can close this tab.</p>";

/** Starts a listener on `127.0.0.1:0/callback`, or on the host, port and path of a fixed loopback URI. */
export function startCallbackListener(fixedUri?: URL): CallbackListener {
  const path = fixedUri?.pathname ?? "/callback";
  let waiter: { expect: () => string | undefined; resolve: (r: CallbackResult) => void; reject: (e: Error) => void } | undefined;
  const server: Server<undefined> = Bun.serve({
    hostname: fixedUri ? fixedUri.hostname.replace(/^\[|\]$/g, "") : "127.0.0.1",
    port: fixedUri ? Number(fixedUri.port || 80) : 0,
    fetch(request) {
      const url = new URL(request.url);
      if (request.method !== "GET" || url.pathname !== path) return new Response("Not found", { status: 404 });
      const state = url.searchParams.get("state");
      if (!waiter || state !== (waiter.expect() ?? null)) {
        return new Response("This authorization response was not expected (unknown state).", { status: 400 });
      }
      const current = waiter;
      waiter = undefined;
      const error = url.searchParams.get("error");
      if (error) {
        const description = url.searchParams.get("error_description");
        current.reject(new Error(`the authorization server refused: ${error}${description ? ` (${description})` : ""}`));
        return new Response("Authorization was refused. You can close this tab.", { status: 400 });
      }
      const code = url.searchParams.get("code");
      if (!code) {
        current.reject(new Error("the authorization callback carried no code"));
        return new Response("The authorization response carried no code.", { status: 400 });
      }
      current.resolve({ code, state });
      return new Response(DONE_PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
    },
  });
  const host = fixedUri ? fixedUri.host : `127.0.0.1:${server.port}`;
  return {
    redirectUri: fixedUri ? fixedUri.href : `http://${host}${path}`,
    next(expect) {
      return new Promise((resolve, reject) => {
        waiter = { expect, resolve, reject };
      });
    },
    close() {
      waiter?.reject(new Error("the authorization was abandoned"));
      waiter = undefined;
      void server.stop(true);
    },
  };
}

/** A fixed redirect URI we can listen on ourselves: plain HTTP on a loopback address. */
export function isLoopbackHttp(uri: URL): boolean {
  return uri.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(uri.hostname);
}
