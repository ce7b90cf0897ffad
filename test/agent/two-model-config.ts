// The config of a project whose session model (`m`, provider `fake`) and `mini` model (`s`, provider `small`)
// are two HTTP provider fakes: what compaction tests need (the mini model writes the summaries, as
// daemon.compaction_model: mini asks; test/agent/compaction-cache.test.ts covers the session's own model).
import type { ProviderFake } from "../fakes/provider-fake.ts";
import type { Dialect } from "../fakes/request-invariants.ts";

const KINDS: Record<Dialect, string> = { a_messages: "custom_a_compatible", b_chat_completions: "custom_b_compatible", b_responses: "custom_b_responses" };

export interface TwoModelConfig {
  main: ProviderFake;
  mini: ProviderFake;
  dialect?: Dialect;
  /** Extra fields of the session model's entry, e.g. "compaction_threshold: 0.6". */
  model?: string;
  /** The inside of the `daemon` block. */
  daemon?: string;
  /** Top-level YAML appended as is. */
  extra?: string;
}

export function twoModelConfig({ main, mini, dialect = "a_messages", model = "context_window: 100000", daemon = "retry: { max_retries: 0 }", extra = "" }: TwoModelConfig): string {
  const kind = KINDS[dialect];
  return `providers:
  fake: { kind: { type: ${kind} }, url: "${main.base}", auth: { type: static_key, key: sk-test-key-0123456789 } }
  small: { kind: { type: ${kind} }, url: "${mini.base}", auth: { type: static_key, key: sk-test-key-0123456789 } }
models:
  m: { provider: fake, class: full, ${model} }
  s: { provider: small, class: mini, context_window: 32000 }
defaults: { full: m, mini: s }
default_permission_matcher: bypass
daemon: { ${daemon}, compaction_model: mini }
${extra}`;
}
