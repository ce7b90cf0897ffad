// docs/providers.md's table of what each model family is sent is derived from the family descriptions
// (src/providers/families/): a family added or changed without its row fails here, and the expected
// table is printed to paste.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { allFamilies } from "../../src/providers/families/resolve.ts";
import type { ModelFamily } from "../../src/providers/families/types.ts";

const code = (s: string) => `\`${s}\``;

function thinking(f: ModelFamily): string {
  const t = f.thinking;
  if (t.form === "adaptive") return code(`thinking: {type: adaptive${t.display ? `, display: ${t.display}` : ""}}`);
  if (t.form === "budget") return `${code("thinking: {type: enabled, budget_tokens}")} (budget from the level)`;
  if (t.form === "flag") return code(`${t.field}: true`);
  return "none sent";
}

function replay(f: ModelFamily): string {
  const r = f.replay;
  if (r.field === "none") return "not sent back";
  const what = {
    thinking_blocks: "thinking blocks, verbatim",
    encrypted_items: "reasoning items with encrypted_content",
    reasoning_content: `${code("reasoning_content")} (OpenRouter: ${code("reasoning")})`,
    reasoning_details: `${code("reasoning_details")}, verbatim, to the model that wrote them`,
  }[r.field];
  const where = r.on === "tool_calls" ? " on messages with tool calls" : "";
  const empty = r.whenEmpty === null ? "" : `, ${code(JSON.stringify(r.whenEmpty))} when there was none`;
  return `${what}${where}, ${r.mandatory ? "required" : "recommended"}${empty}`;
}

const IMAGES = { native: "in the tool result", user_message: "in a user message after the tool messages", none: "a text note" } as const;

export function familyRow(f: ModelFamily): string {
  return [
    `${code(f.id)} — ${f.title}`,
    thinking(f),
    f.effort ? code(f.effort) : "-",
    replay(f),
    IMAGES[f.toolResultImages],
    f.cacheControl === "breakpoints" ? code("cache_control") + " breakpoints" : "the vendor's own",
    f.maxOutputField ? code(f.maxOutputField) : "the endpoint's",
    f.betas.length ? f.betas.map(code).join(", ") : "-",
    f.refusedWithReasoning.length ? f.refusedWithReasoning.map(code).join(", ") : "-",
    f.sources[0] ? `[${f.vendor}](${f.sources[0]})` : f.vendor,
  ].join(" | ");
}

const HEADER = [
  "| family — models | thinking | effort | reasoning sent back | images from tools | caching | output limit | betas (with reasoning) | refused with reasoning | source |",
  "|---|---|---|---|---|---|---|---|---|---|",
];

test("docs/providers.md has the family table, row for row as the descriptions say", () => {
  const docs = readFileSync(join(import.meta.dir, "../../docs/providers.md"), "utf8");
  const expected = [...HEADER, ...allFamilies().map((f) => `| ${familyRow(f)} |`)].join("\n");
  if (!docs.includes(expected)) console.log(`expected table:\n${expected}`);
  expect(docs.includes(expected)).toBe(true);
});

test("every family cites a vendor document (https)", () => {
  for (const f of allFamilies()) expect(f.sources.length > 0 && f.sources.every((s) => s.startsWith("https://")) ? f.id : `${f.id}: no https source`).toBe(f.id);
});
