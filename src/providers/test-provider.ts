// The `test` protocol: an OFFLINE DEMO provider. It makes no network call; it replays scripted
// responses from a local script file (the provider's `url`: a path or file:// URL). Response #n
// answers the request whose history holds n assistant messages, so a scripted conversation replays
// the same way every time.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isAbsolute, resolve } from "node:path";
import { parse } from "yaml";
import type { StopReason, StreamEvent, Usage } from "./events.ts";
import { emptyUsage } from "./events.ts";
import { PROVIDER_ERROR_KINDS, ProviderError, type ProviderErrorKind } from "./errors.ts";
import type { ProviderRequest } from "./request.ts";

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

function chunks(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** Replays the scripted response for this request as normalized events. */
export function* scriptedEvents(script: ScriptedResponse[], request: ProviderRequest, path: string): Generator<StreamEvent> {
  const turn = request.messages.filter((m) => m.role === "assistant").length;
  const r = script[turn];
  if (!r)
    throw new ProviderError({ kind: "invalid_request", code: "script_exhausted", message: `test provider script '${path}' has no response #${turn + 1}` });
  if ("error" in r) throw new ProviderError({ kind: r.error.kind, status: r.error.status ?? null, code: r.error.kind, message: r.error.message });
  yield { type: "response_start", id: `test_${turn + 1}`, model: TEST_PROVIDER_MODEL_LABEL };
  let index = 0;
  if (r.reasoning) {
    for (const c of chunks(r.reasoning)) yield { type: "reasoning_delta", index, text: c };
    yield { type: "reasoning_done", index, text: r.reasoning, replay: null };
    index++;
  }
  if (r.text) {
    for (const c of chunks(r.text)) yield { type: "text_delta", index, text: c };
    yield { type: "text_done", index, text: r.text };
    index++;
  }
  for (const [j, call] of (r.tool_calls ?? []).entries()) {
    const id = call.id ?? `call_test_${turn + 1}_${j + 1}`;
    const args = call.arguments ?? {};
    yield { type: "tool_call_start", index, id, name: call.name };
    yield { type: "tool_call_delta", index, id, arguments_delta: JSON.stringify(args) };
    yield { type: "tool_call_done", index, id, name: call.name, arguments: args };
    index++;
  }
  const usage: Usage = { ...emptyUsage(), ...r.usage };
  yield { type: "usage", usage };
  const stop: StopReason = r.stop_reason ?? ((r.tool_calls ?? []).length > 0 ? "tool_use" : "end_turn");
  yield { type: "done", stop_reason: stop, raw_stop_reason: stop, usage };
}
