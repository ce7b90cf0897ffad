import { Type } from "@sinclair/typebox";
import { Nullable, StringList, Uint32, Uint64 } from "./common.ts";

export const LOG_LEVELS = ["error", "warn", "info", "debug", "trace"] as const;

export const RetryConfig = Type.Object(
  {
    max_retries: Type.Optional(Uint32({ default: 3, description: "0 disables all provider retries." })),
    base_delay_ms: Type.Optional(Uint64({ default: 1000, description: "Base of the computed exponential backoff." })),
    max_computed_delay_ms: Type.Optional(
      Uint64({ default: 60000, description: "Caps computed backoff only (not retry-after hints, not the fixed schedule)." }),
    ),
  },
  { description: "Provider request retries." },
);

export const GoalDriverConfig = Type.Object({
  max_continuations_per_goal: Type.Optional(Uint32({ default: 50, description: "0 disables automatic continuation." })),
  plan_handoff_activate_goal: Type.Optional(Type.Boolean({ default: false })),
  agent_goal_auto_accept: Type.Optional(Type.Boolean({ default: false })),
});

export const FileCatalogConfig = Type.Object({
  max_files: Type.Optional(Uint64({ default: 250000 })),
  max_duration_ms: Type.Optional(Uint64({ default: 15000 })),
  cache_ttl_secs: Type.Optional(Uint64({ default: 30 })),
  exclude_generated: Type.Optional(Type.Boolean({ default: true })),
});

export const DaemonConfig = Type.Object({
  idle_exit_secs: Type.Optional(
    Uint64({
      default: 900,
      description:
        "Seconds a session daemon waits with no client attached, no turn running, nothing queued and no open question before it stops the session and exits; the next attach (agent continue, the TUI, the gateway) starts it again. 0 = never.",
    }),
  ),
  log_level: Type.Optional(Type.Union(LOG_LEVELS.map((l) => Type.Literal(l)))),
  logging: Type.Optional(
    Type.Object({ provider_autopsy: Type.Optional(Type.Boolean({ default: false })) }),
  ),
  web: Type.Optional(
    Type.Object({
      http_proxy: Type.Optional(Nullable(Type.String())),
      https_proxy: Type.Optional(Nullable(Type.String())),
      web_fetch_disallow_http: Type.Optional(Type.Boolean({ default: false })),
    }),
  ),
  tls: Type.Optional(
    Type.Object({
      trust_store: Type.Optional(Nullable(Type.String({ description: "PEM bundle of extra CA certificates." }))),
    }),
  ),
  system_reminders: Type.Optional(Type.Object({ disabled: Type.Optional(StringList()) })),
  max_tool_turns: Type.Optional(Nullable(Uint32({ description: "Zero is treated as unset." }))),
  provider_stream_idle_timeout_secs: Type.Optional(Nullable(Uint64())),
  provider_stream_max_lifetime_secs: Type.Optional(Nullable(Uint64({ description: "Zero disables the limit." }))),
  subagent_stall_threshold_secs: Type.Optional(Nullable(Uint64())),
  subagent_liveness_watchdog_interval_secs: Type.Optional(Nullable(Uint64())),
  follow_symlinks_for_configs: Type.Optional(Type.Boolean({ default: true })),
  instruction_files: Type.Optional(
    Type.Array(Type.String({ minLength: 1, pattern: "^(?!\\.{1,2}$)[^/\\\\]+$", description: "A file name, without a directory." }), {
      minItems: 1,
      description: "Instruction file names tried in each directory, first found wins (default AGENTS.md, CLAUDE.md, GEMINI.md).",
    }),
  ),
  retry: Type.Optional(RetryConfig),
  goal_driver: Type.Optional(GoalDriverConfig),
  compaction_max_retries: Type.Optional(Nullable(Uint32({ description: "Zero disables retries." }))),
  compaction_model: Type.Optional(
    Type.Union([Type.Literal("session"), Type.Literal("mini")], {
      default: "session",
      description: "Who writes compaction summaries: the session's own model over the session's own request (its cached prefix is reused), or the mini model over a transcript.",
    }),
  ),
  compaction_context_cap: Type.Optional(
    Uint32({ default: 200000, description: "Tokens of context worth carrying: compaction starts at the model's compaction threshold or at this many tokens, whichever comes first. 0: no cap." }),
  ),
  file_catalog: Type.Optional(FileCatalogConfig),
  disable_context_clear: Type.Optional(Type.Boolean({ default: false })),
  disabled_tools: Type.Optional(StringList("Tools removed from every conversation.")),
});
