// How long requests to a tool server may take: our limits (the config's), never the SDK's own default.
import type { McpServerConfig } from "./types.ts";

/** The SDK applies a 60 s default to every request; call time limits are ours (default_timeout_seconds). */
export const NO_SDK_TIMEOUT = 2 ** 31 - 1;
/** How long connecting (handshake and tool list) may take unless `startup_timeout_seconds` says otherwise. */
export const DEFAULT_STARTUP_TIMEOUT_SECONDS = 30;

/** Listing and reading are short requests: the call limit when set, else the startup limit (ms). */
export function requestTimeout(config: McpServerConfig): number {
  return (config.default_timeout_seconds ?? config.startup_timeout_seconds ?? DEFAULT_STARTUP_TIMEOUT_SECONDS) * 1000;
}

export class StartupTimeout extends Error {
  constructor(seconds: number) {
    super(`no answer within ${seconds} s of starting (startup_timeout_seconds); the server stays failed until you reconnect it with /mcp`);
  }
}
