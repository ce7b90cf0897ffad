// Runs the tool calls of one assistant message: permission first, then the tool, with lock keys and the
// batch limit from tool-batch.ts. Every call gets exactly one result event, even when denied or cancelled.
import { REQUIRED_TOOL_NAMES } from "../config/builtin-names.ts";
import type { Clock } from "../util/clock.ts";
import { runTool, type Tool, type ToolContext, type ToolProgress, type ToolResult } from "../tools/tool.ts";
import type { AssistantContentPart, ToolCallStatus, ToolResultEntry } from "./conversation.ts";
import type { EngineEvent } from "./events.ts";
import type { Authorization, PermissionRequest } from "./permission.ts";
import { runBatch, type BatchCall } from "./tool-batch.ts";
import { traceToolCall } from "../telemetry/engine-spans.ts";
import type { Tracer } from "../telemetry/tracer.ts";
import type { Checkpoints } from "./checkpoints/recorder.ts";
import type { Hooks } from "./hooks/hooks.ts";
import { postToolUse, preToolUse } from "./hooks/engine-hooks.ts";

export type ToolCallPart = Extract<AssistantContentPart, { type: "tool_call" }>;

/** The engine's own tools are bookkeeping, not work: they take no batch slot. */
const UNCOUNTED_TOOLS = new Set<string>(REQUIRED_TOOL_NAMES);

export interface ToolCallsDeps {
  turnId: string;
  resultsMessageId: string;
  tools: (name: string) => Tool | undefined;
  toolNames: () => string[];
  /** Why an offered tool may not run now (the facet forbids it); absent or null: it may. */
  refusal?: (name: string) => string | null;
  ctx: ToolContext;
  clock: Clock;
  maxConcurrent: number;
  emit: (e: EngineEvent) => void;
  authorize: (req: PermissionRequest, signal: AbortSignal) => Promise<Authorization>;
  /** Applied to every output before the model or a client sees it (secret redaction). */
  scrub: (text: string) => string;
  /** A span per call (name, id, status; never arguments or output). */
  tracer?: Tracer;
  /** Saves restore points of the files a call changes (src/agent/checkpoints/). */
  checkpoints?: Checkpoints;
  /** PreToolUse / PostToolUse hooks (src/agent/hooks/); absent: none. */
  hooks?: Hooks;
}

export async function runToolCalls(calls: readonly ToolCallPart[], deps: ToolCallsDeps, signal: AbortSignal): Promise<ToolResultEntry[]> {
  const results = new Map<string, ToolResultEntry>();
  const finish = (call: ToolCallPart, status: ToolCallStatus, r: ToolResult, started: number): void => {
    if (results.has(call.call_id)) return;
    const entry: ToolResultEntry = {
      call_id: call.call_id,
      name: call.name,
      status,
      output: deps.scrub(r.output),
      ...(r.images?.length ? { images: r.images.map((i) => ({ media_type: i.mediaType, data_base64: i.data })) } : {}),
      ...(r.metadata ? { metadata: r.metadata } : {}),
    };
    results.set(call.call_id, entry);
    const now = deps.clock.now();
    deps.emit({ type: "tool_call_completed", turn_id: deps.turnId, part_id: call.id, results_message_id: deps.resultsMessageId, result: entry, duration_ms: now - started, completed_at: now });
  };

  const batch: BatchCall[] = calls.map((call) => {
    const tool = deps.tools(call.name);
    let lockKey: string | undefined;
    try {
      lockKey = tool?.exclusive?.(call.arguments as never, deps.ctx);
    } catch {
      lockKey = undefined;
    }
    return {
      call_id: call.call_id,
      lockKey,
      counted: !UNCOUNTED_TOOLS.has(call.name),
      run: (batchSignal) => traceToolCall(deps.tracer, deps.ctx, call, () => results.get(call.call_id)?.status, async () => {
        const started = deps.clock.now();
        deps.emit({ type: "tool_call_started", turn_id: deps.turnId, call_id: call.call_id, part_id: call.id, name: call.name, arguments: call.arguments });
        if (batchSignal.aborted) return finish(call, "cancelled", { output: "Cancelled by the user before it ran." }, started);
        if (!tool) {
          const known = deps.toolNames().join(", ");
          return finish(call, "error", { output: `There is no tool named \`${call.name}\`. Available tools: ${known}.`, isError: true }, started);
        }
        // Refused before the permission check: nobody is asked about a call that cannot run here.
        const refusal = deps.refusal?.(call.name);
        if (refusal) return finish(call, "error", { output: refusal, isError: true }, started);
        // A PreToolUse hook runs before the permission check: it may refuse the call, or answer the question for the person.
        const pre = await preToolUse(deps.hooks, call, deps.ctx.cwd, deps.turnId, batchSignal);
        if ("deny" in pre) return finish(call, "denied", { output: pre.deny, isError: true }, started);
        const as = tool.permissionAs?.(call.arguments as never);
        const req: PermissionRequest = { tool: as?.tool ?? call.name, input: as?.input ?? call.arguments, cwd: deps.ctx.cwd, projectRoot: deps.ctx.projectRoot, ...(pre.hook ? { hook: { decision: pre.hook, ...(pre.reason ? { reason: pre.reason } : {}) } } : {}) };
        let auth: Authorization;
        try {
          auth = await deps.authorize(req, batchSignal);
        } catch (error) {
          if (batchSignal.aborted) return finish(call, "cancelled", { output: "Cancelled by the user while waiting for permission." }, started);
          auth = { allowed: false, message: `The permission check failed (${(error as Error).message}); the call was not run.` };
        }
        // The duration is the tool's own run: the wait for a person's answer is not part of it.
        const ran = deps.clock.now();
        if (!auth.allowed) return finish(call, "denied", { output: auth.message, isError: true }, ran);
        // Before the first change: a restore point of what the call will change (a command's, once it ran).
        const guard = await deps.checkpoints?.beforeCall(call, tool, deps.ctx).catch(() => null);
        const ranTool = await runTool(tool, call.arguments, { ...deps.ctx, callId: call.call_id, onProgress: progressReporter(deps, call) }, batchSignal);
        await guard?.after().catch(() => {});
        if (batchSignal.aborted) return finish(call, "cancelled", { ...ranTool, output: `Cancelled by the user. ${ranTool.output}`.trim(), isError: true }, ran);
        const r = await postToolUse(deps.hooks, call, deps.ctx.cwd, deps.turnId, ranTool, batchSignal);
        finish(call, r.isError ? "error" : "completed", r, ran);
      }),
    };
  });
  await runBatch(batch, deps.maxConcurrent, signal);
  // A call that never started (the batch was cancelled first) still gets its result.
  for (const call of calls) {
    if (!results.has(call.call_id)) {
      const now = deps.clock.now();
      deps.emit({ type: "tool_call_started", turn_id: deps.turnId, call_id: call.call_id, part_id: call.id, name: call.name, arguments: call.arguments });
      finish(call, "cancelled", { output: "Cancelled by the user before it ran." }, now);
    }
  }
  return calls.map((c) => results.get(c.call_id)!);
}

/** Progress reports of one call as events, at most one per PROGRESS_INTERVAL_MS (the last of a burst may wait for the next). */
function progressReporter(deps: { emit(e: EngineEvent): void; clock: { now(): number }; turnId: string }, call: { call_id: string; id: string; name: string }) {
  let last = -Infinity;
  return (p: ToolProgress) => {
    const now = deps.clock.now();
    if (now - last < PROGRESS_INTERVAL_MS && !(p.total !== undefined && p.progress >= p.total)) return;
    last = now;
    deps.emit({
      type: "tool_call_progress",
      turn_id: deps.turnId,
      call_id: call.call_id,
      part_id: call.id,
      name: call.name,
      progress: p.progress,
      ...(p.total !== undefined ? { total: p.total } : {}),
      ...(p.message ? { message: p.message.slice(0, 200) } : {}),
    });
  };
}

const PROGRESS_INTERVAL_MS = 250;
