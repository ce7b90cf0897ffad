// One tool call on an open client: the server's default_timeout_seconds instead of the SDK's limit, and
// each progress notification to the session's listeners and to the running call.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { NO_SDK_TIMEOUT } from "./timeouts.ts";

export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface ToolCallRequest {
  tool: string;
  args: Record<string, unknown>;
  /** The caller's cancellation (an interrupted turn). */
  signal: AbortSignal;
  /** default_timeout_seconds; absent: no limit. */
  seconds?: number;
  /** Every notification, as the server sent it (the session's progress events). */
  onAnyProgress(progress: ToolProgress): void;
  /** The running call's own progress line. */
  onProgress?(progress: ToolProgress): void;
}

/** The call's result, and whether our time limit (not the caller) ended it when it fails. */
export function startToolCall(client: Client, request: ToolCallRequest): { result: Promise<CallToolResult>; timedOut(): boolean } {
  const { seconds, signal } = request;
  const timeout = seconds ? AbortSignal.timeout(seconds * 1000) : undefined;
  const result = client.callTool({ name: request.tool, arguments: request.args }, undefined, {
    signal: timeout ? AbortSignal.any([signal, timeout]) : signal,
    timeout: NO_SDK_TIMEOUT,
    onprogress: (p) => {
      request.onAnyProgress({ progress: p.progress, total: p.total, message: p.message });
      request.onProgress?.({ progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message ? { message: p.message } : {}) });
    },
  }) as Promise<CallToolResult>;
  return { result, timedOut: () => !!timeout?.aborted && !signal.aborted };
}

export function callTimeoutError(server: string, seconds: number | null | undefined): Error {
  return new Error(`no answer within ${seconds} s (default_timeout_seconds of "${server}"); the call was cancelled`);
}
