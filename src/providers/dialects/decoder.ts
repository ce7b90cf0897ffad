// What every dialect decoder implements: SSE events in, normalized events out.
import type { StreamEvent } from "../events.ts";
import { ProviderError, protocolError } from "../errors.ts";

export type Emit = (event: StreamEvent) => void;

export interface DialectDecoder {
  /** One SSE event (name and data). Throws ProviderError on in-stream errors and wire violations. */
  onSse(event: string, data: string): void;
  /** End of the byte stream. Throws when the stream ended before its terminal event. */
  end(): void;
}

export function parseJson(data: string, what: string): any {
  try {
    return JSON.parse(data);
  } catch {
    throw protocolError(`provider sent invalid JSON in ${what} (${data.length} bytes)`, "invalid_json");
  }
}

/** The stream closed before the dialect's terminal event: retryable, like a reset connection. */
export function streamIncomplete(dialect: string): ProviderError {
  return new ProviderError({
    kind: "network",
    code: "stream_incomplete",
    message: `${dialect} stream ended before its terminal event`,
  });
}

/** Parses a tool call's final argument text; empty means `{}`; anything but an object is a typed error. */
export function parseToolArguments(raw: string, name: string, id: string): Record<string, unknown> {
  if (raw.trim().length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ProviderError({
      kind: "invalid_tool_arguments",
      code: "invalid_tool_arguments",
      message: `tool call ${id} (${name}) has arguments that are not valid JSON (${raw.length} chars)`,
    });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ProviderError({
      kind: "invalid_tool_arguments",
      code: "invalid_tool_arguments",
      message: `tool call ${id} (${name}) has arguments that are not a JSON object`,
    });
  }
  return value as Record<string, unknown>;
}
