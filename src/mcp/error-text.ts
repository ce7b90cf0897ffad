// A connection's errors in words for the user: an SDK error without an HTML body or secrets, why a server's
// tools cannot run, and why an expired HTTP session failed the server.
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { redactText } from "../util/redact.ts";
import type { McpServerState } from "./types.ts";

export const EXPIRED_REASON = "the server ended the session (HTTP 404); reconnect it with /mcp, or set reinit_on_expired_session";

/** An error in words for the user, with configured secrets and token shapes removed. */
export function describeError(error: unknown, secrets: string[]): string {
  let message = error instanceof Error ? error.message : String(error);
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code > 0) {
    // The SDK's message carries the response body, often an HTML error page: keep only short plain text.
    const body = message.replace(/^Streamable HTTP error: [^:]*: ?/, "").trim();
    message = `HTTP ${error.code} from the server${body && body.length <= 200 && !body.startsWith("<") ? `: ${body}` : ""}`;
  }
  return redactText(message, secrets);
}

export function unavailableError(server: string, state: McpServerState, reason: string | undefined): Error {
  return new Error(`the \`${server}\` tool server is ${state}${reason ? ` (${reason})` : ""}; its tools cannot run until the user reconnects it with /mcp`);
}
