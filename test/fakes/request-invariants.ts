// Invariants every request our client sends must hold, per dialect.

export type Dialect = "a_messages" | "b_chat_completions" | "b_responses";

export interface ReplayMemory {
  /** Thinking blocks the fake emitted (Messages): any sent back must match one exactly. */
  thinking: Record<string, unknown>[];
  /** Reasoning items the fake emitted (Responses): any sent back must match one exactly. */
  reasoningItems: Record<string, unknown>[];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function checkRequestInvariants(dialect: Dialect, body: any, memory: ReplayMemory): string[] {
  const problems: string[] = [];
  if (!body || typeof body !== "object") return ["request body is not an object"];
  if (body.stream !== true) problems.push("stream is not true");
  if (typeof body.model !== "string" || body.model.length === 0) problems.push("model is empty");
  if (dialect === "a_messages") {
    const asked = new Set<string>();
    const answered = new Set<string>();
    for (const m of body.messages ?? []) {
      for (const block of Array.isArray(m.content) ? m.content : []) {
        if (block.type === "tool_use") {
          if (!block.id) problems.push("tool_use with empty id");
          asked.add(block.id);
        }
        if (block.type === "tool_result") {
          if (!block.tool_use_id) problems.push("tool_result with empty tool_use_id");
          answered.add(block.tool_use_id);
        }
        if (block.type === "thinking" && !memory.thinking.some((t) => same(t, block))) problems.push("thinking block not returned verbatim");
      }
    }
    for (const id of asked) if (!answered.has(id)) problems.push(`tool_use ${id} has no tool_result`);
    let breakpoints = 0;
    const count = (blocks: any[]) => blocks.forEach((b) => b?.cache_control && breakpoints++);
    count(body.tools ?? []);
    count(Array.isArray(body.system) ? body.system : []);
    for (const m of body.messages ?? []) count(Array.isArray(m.content) ? m.content : []);
    if (breakpoints > 4) problems.push(`${breakpoints} cache breakpoints (max 4)`);
  } else if (dialect === "b_chat_completions") {
    const asked = new Set<string>();
    const answered = new Set<string>();
    for (const m of body.messages ?? []) {
      for (const c of m.tool_calls ?? []) {
        if (!c.id) problems.push("tool_call with empty id");
        asked.add(c.id);
      }
      if (m.role === "tool") {
        if (!m.tool_call_id) problems.push("tool message with empty tool_call_id");
        answered.add(m.tool_call_id);
      }
    }
    for (const id of asked) if (!answered.has(id)) problems.push(`tool call ${id} has no tool message`);
  } else {
    const asked = new Set<string>();
    const answered = new Set<string>();
    for (const item of body.input ?? []) {
      if (item.type === "function_call") {
        if (!item.call_id) problems.push("function_call with empty call_id");
        asked.add(item.call_id);
      }
      if (item.type === "function_call_output") answered.add(item.call_id);
      if (item.type === "reasoning" && !memory.reasoningItems.some((r) => same(r, item))) problems.push("reasoning item not returned verbatim");
    }
    for (const id of asked) if (!answered.has(id)) problems.push(`function_call ${id} has no function_call_output`);
  }
  return problems;
}
