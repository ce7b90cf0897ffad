// Where the engine's loop meets the hooks: the payload of each event in Claude Code's field names, and what
// a verdict does there (refuse a call, let it skip the question, feed text to the model, block a prompt).
import { isAbsolute, resolve } from "node:path";
import type { ToolResult } from "../../tools/tool.ts";
import type { ToolCallPart } from "../tool-calls.ts";
import type { Hooks } from "./hooks.ts";

/** How a PreToolUse verdict changes the permission check: `deny` refuses with its message. */
export type PreToolOutcome = { deny: string } | { hook?: "allow" | "ask"; reason?: string };

/** The call's input as hooks read it: the model's arguments, plus `file_path` (absolute) where the tool takes one `path`. */
export function hookToolInput(args: Record<string, unknown>, cwd: string): Record<string, unknown> {
  const path = args.path;
  if (typeof path !== "string" || "file_path" in args) return args;
  return { ...args, file_path: isAbsolute(path) ? path : resolve(cwd, path) };
}

export async function preToolUse(hooks: Hooks | undefined, call: ToolCallPart, cwd: string, turnId: string, signal: AbortSignal): Promise<PreToolOutcome> {
  if (!hooks?.has("PreToolUse")) return {};
  const v = await hooks.run("PreToolUse", { tool_name: call.name, tool_input: hookToolInput(call.arguments, cwd), tool_use_id: call.call_id }, { turnId, target: call.name, callId: call.call_id, signal });
  if (v.blocked || v.decision === "deny") return { deny: `Blocked by a PreToolUse hook: ${v.reason ?? "no reason given"}` };
  return { ...(v.decision === "allow" || v.decision === "ask" ? { hook: v.decision } : {}), ...(v.reason ? { reason: v.reason } : {}) };
}

/** Runs PostToolUse for a call that ran; returns the result with what the hooks said to the model appended. */
export async function postToolUse(hooks: Hooks | undefined, call: ToolCallPart, cwd: string, turnId: string, result: ToolResult, signal: AbortSignal): Promise<ToolResult> {
  if (!hooks?.has("PostToolUse")) return result;
  const response = { output: result.output, is_error: result.isError === true, ...(result.metadata ? { metadata: result.metadata } : {}) };
  const v = await hooks.run("PostToolUse", { tool_name: call.name, tool_input: hookToolInput(call.arguments, cwd), tool_response: response, tool_use_id: call.call_id }, { turnId, target: call.name, callId: call.call_id, signal });
  const said = [v.blocked && v.reason ? `PostToolUse hook feedback: ${v.reason}` : "", v.context ? `PostToolUse hook context: ${v.context}` : ""].filter(Boolean);
  return said.length ? { ...result, output: `${result.output}\n\n${said.join("\n")}` } : result;
}

/** UserPromptSubmit: `blocked` holds the reason the prompt was refused; `context` text to add to it. */
export async function userPromptSubmit(hooks: Hooks | undefined, prompt: string, turnId: string, signal: AbortSignal): Promise<{ blocked?: string; context?: string }> {
  if (!hooks || hooks.role !== "root" || !hooks.has("UserPromptSubmit")) return {};
  const v = await hooks.run("UserPromptSubmit", { prompt }, { turnId, signal });
  if (v.blocked) return { blocked: v.reason ?? "blocked by a UserPromptSubmit hook" };
  return v.context ? { context: v.context } : {};
}

/** Stop (SubagentStop in a subagent): the reason the model must go on, or null to let the turn end. */
export async function stopHook(hooks: Hooks | undefined, active: boolean, turnId: string, signal: AbortSignal): Promise<string | null> {
  const event = hooks?.role === "subagent" ? "SubagentStop" : "Stop";
  if (!hooks?.has(event)) return null;
  const v = await hooks.run(event, { stop_hook_active: active }, { turnId, signal });
  return v.blocked ? (v.reason ?? "a Stop hook asked you to go on") : null;
}

/** PreCompact, before a compaction starts (`manual`: /compact). It cannot stop it; its errors are shown to the person. */
export async function preCompact(hooks: Hooks | undefined, manual: boolean, instructions: string | undefined, turnId: string | null, signal: AbortSignal): Promise<void> {
  if (!hooks || hooks.role !== "root" || !hooks.has("PreCompact")) return;
  const trigger = manual ? "manual" : "auto";
  await hooks.run("PreCompact", { trigger, custom_instructions: instructions ?? "" }, { turnId: turnId ?? "", target: trigger, signal });
}
