// What the engine asks before running a tool call. The permission rules and matchers (src/permissions)
// implement PermissionGate; the session turns an `ask` into an interrogative for the user.
import type { SubagentRef } from "./events.ts";

export interface PermissionRequest {
  tool: string;
  input: Record<string, unknown>;
  cwd: string;
  projectRoot: string;
  /** The subagent making the call, named in the ask the user sees. */
  subagent?: SubagentRef;
  /** A PreToolUse hook's decision: `allow` answers an ask (deny rules still refuse), `ask` asks even where the rules allow. */
  hook?: { decision: "allow" | "ask"; reason?: string };
}

export type PermissionDecision =
  | { kind: "allow"; rule?: string }
  | { kind: "deny"; reason: string; rule?: string }
  | { kind: "ask"; reason: string; suggestedRule: string };

export interface PermissionGate {
  check(req: PermissionRequest, signal?: AbortSignal): Promise<PermissionDecision>;
  /** After the user answered allow_always: add the rule for this session or to the project rule file. */
  allowAlways(req: PermissionRequest, scope: "session" | "project"): Promise<string>;
  /** The user's answer to an ask (the autonomous matcher counts denials in a row). */
  recordAnswer(req: PermissionRequest, allowed: boolean): void;
}

/** The outcome the tool runner acts on. */
export type Authorization = { allowed: true } | { allowed: false; message: string };
