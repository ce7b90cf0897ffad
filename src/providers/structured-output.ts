// Structured output: request options that make the provider answer JSON of a given JSON Schema, where
// its API has that (Responses `text.format`, Chat Completions `response_format`, both `json_schema`).
// The Messages API has no such option: the caller states the schema in the prompt instead.
// `strict: false`: strict mode refuses many ordinary schemas (optional properties, open objects), and
// the caller validates the answer either way (agent exec --output-schema).
import type { BaseDialect } from "./protocols.ts";

/** The name the APIs want for the format (`^[a-zA-Z0-9_-]{1,64}$`). */
const FORMAT_NAME = "final_answer";

/**
 * The options to merge over `defaults` (values are JSON text: object-typed options are sent parsed,
 * request-options.ts); null when the dialect has no structured output. A Responses `text` default
 * (its `verbosity`) is kept beside the format.
 */
export function structuredOutputOptions(dialect: BaseDialect, schema: Record<string, unknown>, defaults: Record<string, boolean | string>): Record<string, string> | null {
  if (dialect === "b_responses") {
    const text = typeof defaults.text === "string" ? parseObject(defaults.text) : {};
    return { text: JSON.stringify({ ...text, format: { type: "json_schema", name: FORMAT_NAME, schema, strict: false } }) };
  }
  if (dialect === "b_chat_completions") return { response_format: JSON.stringify({ type: "json_schema", json_schema: { name: FORMAT_NAME, schema, strict: false } }) };
  return null;
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}
