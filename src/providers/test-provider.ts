// The `test` protocol: an OFFLINE DEMO provider. It replays scripted responses from a local script file
// (the provider's `url`: a path or file:// URL), served as Chat Completions by an in-process server on
// 127.0.0.1 (scripted-server.ts), so no model and no network beyond loopback are involved. Response #n
// answers the request whose history holds n assistant messages, so a scripted conversation replays
// the same way every time. This file is the script: its format, loading and validation.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isAbsolute, resolve } from "node:path";
import { parse } from "yaml";
import type { StopReason, Usage } from "./events.ts";
import { PROVIDER_ERROR_KINDS, type ProviderErrorKind } from "./errors.ts";

export const TEST_PROVIDER_MODEL_LABEL = "test (offline demo: scripted responses, no model)";

export class TestScriptError extends Error {
  constructor(path: string, message: string) {
    super(`test provider script '${path}': ${message}`);
    this.name = "TestScriptError";
  }
}

export interface ScriptedToolCall {
  id?: string;
  name: string;
  arguments: Record<string, unknown>;
}

export type ScriptedResponse =
  | { text?: string; reasoning?: string; tool_calls?: ScriptedToolCall[]; stop_reason?: StopReason; usage?: Partial<Usage> }
  | { error: { kind: ProviderErrorKind; message: string; status?: number } };

export function scriptPathFromUrl(url: string, cwd: string): string {
  const path = url.startsWith("file:") ? fileURLToPath(url) : url;
  return isAbsolute(path) ? path : resolve(cwd, path);
}

export function loadTestScript(path: string): ScriptedResponse[] {
  let doc: unknown;
  try {
    doc = parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new TestScriptError(path, `cannot be read or parsed: ${(error as Error).message}`);
  }
  const list = (doc as { responses?: unknown })?.responses;
  if (!Array.isArray(list) || list.length === 0) throw new TestScriptError(path, "expected a non-empty `responses` list");
  list.forEach((r, i) => {
    if (!r || typeof r !== "object") throw new TestScriptError(path, `responses[${i}] must be an object`);
    if ("error" in r) {
      const kind = (r as { error?: { kind?: string } }).error?.kind;
      if (!kind || !(PROVIDER_ERROR_KINDS as readonly string[]).includes(kind))
        throw new TestScriptError(path, `responses[${i}].error.kind must be one of ${PROVIDER_ERROR_KINDS.join(", ")}`);
      return;
    }
    const calls = (r as { tool_calls?: unknown }).tool_calls;
    if (calls !== undefined && !Array.isArray(calls)) throw new TestScriptError(path, `responses[${i}].tool_calls must be a list`);
    for (const [j, c] of ((calls as ScriptedToolCall[] | undefined) ?? []).entries()) {
      if (typeof c?.name !== "string" || !c.name) throw new TestScriptError(path, `responses[${i}].tool_calls[${j}].name is required`);
      if (c.arguments !== undefined && (typeof c.arguments !== "object" || Array.isArray(c.arguments)))
        throw new TestScriptError(path, `responses[${i}].tool_calls[${j}].arguments must be an object`);
    }
  });
  return list as ScriptedResponse[];
}
