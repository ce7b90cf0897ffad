// `agent exec --max-turns N --max-cost USD`, and the one-line summary of what the run used.
import type { LoadedConfig } from "../config/load.ts";
import { modelPrice, sessionCost, type SessionCost } from "../providers/cost.ts";
import type { Usage } from "../providers/events.ts";
import { CliError, UsageError, type ParsedArgs } from "../util/cli-command.ts";

type Billed = { model: string; usage: Usage | null }[];
type Env = Record<string, string | undefined>;

export interface RunLimits {
  /** Tool round-trips of the turn (replaces daemon.max_tool_turns for this run); null: the config's. */
  maxTurns: number | null;
  maxCostUsd: number | null;
  /** Why the run was stopped by a limit of these (the turn is interrupted), or null. */
  stopped: string | null;
  /** Refuses a cost limit that cannot be checked (a model without a known price). */
  check(loaded: Pick<LoadedConfig, "models" | "config">, modelKey: string, env: Env): void;
  /** After each model message: whether the run is now over its cost limit (then `stopped` says so). */
  overBudget(billed: Billed, loaded: Pick<LoadedConfig, "models" | "config">, env: Env): boolean;
}

export function runLimits(args: ParsedArgs): RunLimits {
  const turns = args.flags["max-turns"] as string | undefined;
  const cost = args.flags["max-cost"] as string | undefined;
  if (turns !== undefined && !/^[1-9][0-9]{0,5}$/.test(turns)) throw new UsageError(`--max-turns takes a whole number from 1 to 999999 (tool round-trips); got '${turns}'`);
  if (cost !== undefined && !(/^[0-9]+(\.[0-9]+)?$/.test(cost) && Number(cost) > 0)) throw new UsageError(`--max-cost takes an amount in US dollars above 0, such as 0.50; got '${cost}'`);
  const maxCostUsd = cost === undefined ? null : Number(cost);
  const limits: RunLimits = {
    maxTurns: turns === undefined ? null : Number(turns),
    maxCostUsd,
    stopped: null,
    check(loaded, modelKey, env) {
      if (maxCostUsd !== null && modelPrice(loaded, modelKey, env) === null) {
        throw new CliError(`--max-cost: model ${modelKey} has no known price (only models of catalog providers are priced, from the models.dev snapshot), so the limit could not be kept`);
      }
    },
    overBudget(billed, loaded, env) {
      if (maxCostUsd === null || limits.stopped) return false;
      const spent = sessionCost(billed, (model) => modelPrice(loaded, model, env)).usd ?? 0;
      if (spent < maxCostUsd) return false;
      limits.stopped = `the run cost $${spent.toFixed(4)}, reaching --max-cost $${maxCostUsd}`;
      return true;
    },
  };
  return limits;
}

/** `tokens: 1234 in (1000 cached), 56 out · cost $0.0012` — stderr, after a plain run. */
export function usageSummary(billed: Billed, cost: SessionCost): string {
  let input = 0;
  let cached = 0;
  let out = 0;
  let reasoning = 0;
  for (const { usage } of billed) {
    if (!usage) continue;
    input += usage.input_tokens;
    cached += usage.cache_read_tokens;
    out += usage.output_tokens;
    reasoning += usage.reasoning_tokens;
  }
  const calls = billed.length;
  const price = cost.usd === null ? "cost unknown (no price for this model)" : `cost $${cost.usd.toFixed(4)}${cost.unpriced_messages > 0 ? ` (+${cost.unpriced_messages} unpriced)` : ""}`;
  return `${calls} model call${calls === 1 ? "" : "s"} · tokens: ${input} in${cached > 0 ? ` (${cached} cached)` : ""}, ${out} out${reasoning > 0 ? ` (${reasoning} reasoning)` : ""} · ${price}`;
}
