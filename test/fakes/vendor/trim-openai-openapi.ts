// Regenerates openai-openapi.schemas.json from OpenAI's official OpenAPI document: the request schemas
// of Chat Completions and Responses and everything they reference, as one JSON Schema 2020-12 document.
// Usage: bun test/fakes/vendor/trim-openai-openapi.ts <openapi.json of openai/openai-openapi> <commit> <commit date>
// What changes on the way (nothing else does): descriptions, titles, examples and x-* vendor keys are
// dropped (size); OpenAPI 3.0's `nullable: true`, still used in places, becomes the 2020-12 form (a
// "null" type); `#/components/schemas/X` references become `#/$defs/X`; the one 2019-09
// `$recursiveRef: "#"` (a nested filter) becomes a reference to its own schema; `oneOf` becomes `anyOf`:
// the document's unions overlap (an EasyInputMessage is also an InputMessage) and the API tells the
// alternatives apart by their `type` (the `discriminator`), never refusing an item two of them describe.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const ROOTS = ["CreateChatCompletionRequest", "CreateResponse"];
const DROP = new Set(["description", "title", "example", "examples", "deprecated"]);

function clean(node: unknown, def: string): unknown {
  if (Array.isArray(node)) return node.map((n) => clean(n, def));
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (DROP.has(k) || k.startsWith("x-") || k === "nullable" || k === "$recursiveAnchor") continue;
    if (k === "$ref" && typeof v === "string") out[k] = v.replace("#/components/schemas/", "#/$defs/");
    else if (k === "$recursiveRef" && v === "#") out.$ref = `#/$defs/${def}`;
    else if (k === "oneOf") out.anyOf = clean(v, def);
    else if (k === "properties" && v && typeof v === "object")
      out[k] = Object.fromEntries(Object.entries(v).map(([name, schema]) => [name, clean(schema, def)]));
    else out[k] = clean(v, def);
  }
  if ((node as Record<string, unknown>).nullable === true) {
    if (typeof out.type !== "string") return { anyOf: [out, { type: "null" }] };
    out.type = [out.type, "null"];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  return out;
}

function refsOf(node: unknown, into: Set<string>): void {
  if (Array.isArray(node)) return node.forEach((n) => refsOf(n, into));
  if (!node || typeof node !== "object") return;
  for (const [k, v] of Object.entries(node)) {
    if (k === "$ref" && typeof v === "string") into.add(v.split("/").pop()!);
    else refsOf(v, into);
  }
}

const [file, commit, date] = process.argv.slice(2);
if (!file || !commit || !date) throw new Error("usage: trim-openai-openapi.ts <openapi.json> <commit> <commit date>");
const doc = JSON.parse(readFileSync(file, "utf8"));
const all: Record<string, unknown> = doc.components.schemas;
const needed = new Set<string>();
const todo = [...ROOTS];
while (todo.length > 0) {
  const name = todo.pop()!;
  if (needed.has(name)) continue;
  if (!(name in all)) throw new Error(`schema ${name} referenced but absent`);
  needed.add(name);
  const found = new Set<string>();
  refsOf(all[name], found);
  todo.push(...[...found].filter((n) => !needed.has(n)));
}
const $defs = Object.fromEntries([...needed].sort().map((n) => [n, clean(all[n], n)]));
const out = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $comment: `Trimmed from openai/openai-openapi openapi.json (OpenAPI ${doc.openapi}, API version ${doc.info.version}), commit ${commit} of ${date}; MIT licence, Copyright (c) OpenAI. Regenerate with trim-openai-openapi.ts.`,
  $defs,
};
writeFileSync(join(import.meta.dir, "openai-openapi.schemas.json"), JSON.stringify(out, null, 1) + "\n");
console.log(`${needed.size} schemas written`);
