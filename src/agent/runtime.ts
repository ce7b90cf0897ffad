// Everything a turn needs, assembled once per session (src/agent/create-session.ts) and passed in:
// no module-level singletons, so tests build one with fakes.
import type { ResolvedModel } from "../config/models.ts";
import type { ProviderCallOptions } from "../providers/call.ts";
import type { Clock } from "../util/clock.ts";
import type { Usage } from "../providers/events.ts";
import type { ReasoningRequest, ToolSpec } from "../providers/request.ts";
import type { ResolvedProvider } from "../providers/resolve.ts";
import type { RetrySettings } from "../providers/settings.ts";
import type { ToolContext } from "../tools/tool.ts";
import type { Tracer } from "../telemetry/tracer.ts";
import type { CompactionSettings } from "./compaction/settings.ts";
import type { UserMessage } from "./conversation.ts";
import type { EngineEvent } from "./events.ts";
import type { Authorization, PermissionRequest } from "./permission.ts";
import type { Reminders } from "./reminders.ts";
import type { ToolSet } from "./tool-set.ts";
import type { Checkpoints } from "./checkpoints/recorder.ts";
import type { Hooks } from "./hooks/hooks.ts";

export interface AgentRuntime {
  sessionId: string;
  facet: string;
  model: ResolvedModel;
  reasoning: ReasoningRequest | null;
  provider: ResolvedProvider;
  retry: RetrySettings;
  callDeps: ProviderCallOptions["deps"];
  clock: Clock;
  newId(prefix: string): string;
  emit(event: EngineEvent): void;
  systemPrompt(): string;
  tools: ToolSet;
  /** What the model is told about the tools this turn (empty for `no_tools`). */
  toolSpecs(): ToolSpec[];
  toolContext: ToolContext;
  /** 0: no limit. */
  maxToolTurns: number;
  /** A JSON Schema the final answer must follow (agent exec --output-schema): asked of providers with structured output. */
  outputSchema?: Record<string, unknown> | null;
  reminders: Reminders;
  authorize(req: PermissionRequest, signal: AbortSignal): Promise<Authorization>;
  /** Secret redaction of tool output. */
  scrub(text: string): string;
  /** Messages waiting for a safe point in the conversation (notifications): taken before each model call. */
  inbox?: { take(turnStart: boolean): UserMessage[] };
  /** Spans for turns and tool calls (src/telemetry); absent: none. */
  tracer?: Tracer;
  /** A message's usage at its model's models.dev price in USD (src/providers/cost.ts); null: no price. */
  costOf?(modelKey: string, usage: Usage): number | null;
  /** Who summarizes when the context fills up, retries, whether /clear is allowed. */
  compaction: CompactionSettings;
  /** Restore points of the files each turn changes (/undo, /rewind); absent: none are kept. */
  checkpoints?: Checkpoints;
  /** Commands of the `hooks` config run on engine events (src/agent/hooks/); absent: none. */
  hooks?: Hooks;
}
