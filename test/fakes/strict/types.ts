// The shapes of a strict fake's vendor description: rules written from the vendor's API reference,
// each naming the page it comes from, and the vendor's own error answer for a request that breaks one.
import type { Dialect } from "../request-invariants.ts";

/** What a broken rule reports: the vendor's message and, where the vendor fills them, param and code. */
export interface Broken {
  message: string;
  param?: string | null;
  code?: string | null;
  /** HTTP status when the vendor does not answer 400 for this rule. */
  status?: number;
  /** The error's `type` where the vendor varies it by rule (Mistral). */
  type?: string;
}

export interface RuleRequest {
  body: any;
  headers: Record<string, string>;
  /** What this fake has answered so far (rules that depend on what the vendor itself sent). */
  emitted?: Emitted;
}

export interface Emitted {
  /** Tool call ids of the fake's answers (a vendor's own ids are never refused). */
  callIds: ReadonlySet<string>;
  /** Tool call ids whose answer began with thinking (Messages): that thinking must come back with them. */
  thinkingCallIds: ReadonlySet<string>;
}

export interface Rule {
  /** Stable name, `<vendor>.<what>`: it prefixes the entry in the fake's `violations`. */
  id: string;
  /** The vendor documentation page (or the vendor's published error) the rule was written from. */
  source: string;
  /** The vendor's published model ids the rule applies to (a RegExp or a family test); absent: every model. */
  models?: ModelSet;
  check(req: RuleRequest): Broken | null;
}

/** A set of model ids; `toString` names it (the completeness test lists a rule without a case with it). */
export interface ModelSet {
  test(model: string): boolean;
  toString(): string;
}

/** A model set defined by a test function, named for the docs. */
export function family(name: string, test: (model: string) => boolean): ModelSet {
  return { test, toString: () => name };
}

/** The HTTP answer a vendor gives for a broken rule. */
export interface Refusal {
  status: number;
  body: unknown;
}

export interface VendorProfile {
  /** The vendor's name as tests pass it (`anthropic`, `deepseek`, ...). */
  vendor: string;
  dialect: Dialect;
  rules: readonly Rule[];
  /** The vendor's error body for a broken rule (status 400 unless the rule says otherwise). */
  refuse(broken: Broken): Refusal;
  /** Chat Completions: the delta field the vendor streams reasoning in. */
  reasoningField?: "reasoning_content" | "reasoning";
}
