// The OAuth steps of a connection that need no connection state: the code in an address the user pastes,
// and refreshing expired tokens before connecting.
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import type { HttpAuth } from "./http-transport.ts";

/** Authorizations in a row without one successful request before the server counts as refusing us. */
export const MAX_AUTHORIZATIONS_WITHOUT_SUCCESS = 2;

/**
 * The authorization code in what the user pasted (the URL the browser was sent to, its query, or just the
 * code), checked against the state of the authorization in progress.
 */
export function pastedAuthorizationCode(callback: string, expectedState: string | undefined): string {
  const text = callback.trim();
  const query = text.includes("?") ? new URLSearchParams(text.slice(text.indexOf("?") + 1)) : new URLSearchParams(text.includes("=") ? text : `code=${text}`);
  const code = query.get("code");
  if (!code) throw new Error("the pasted address carries no authorization code (expected ...?code=...&state=...)");
  const state = query.get("state");
  if (state !== null && state !== expectedState) {
    throw new Error("the pasted address belongs to another authorization (its state does not match); open the current link from /mcp");
  }
  return code;
}

/** Expired tokens with a refresh token are refreshed; a failure is reported and left to the server's 401. */
export async function refreshIfExpired(http: HttpAuth | undefined, serverUrl: string, onFailure: (error: unknown) => void): Promise<void> {
  const provider = http?.provider;
  if (!provider?.tokensExpired() || !provider.tokens()?.refresh_token) return;
  try {
    await auth(provider, { serverUrl });
  } catch (error) {
    onFailure(error);
  }
}
