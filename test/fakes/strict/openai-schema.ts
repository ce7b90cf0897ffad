// OpenAI's requests checked against OpenAI's own OpenAPI document (the snapshot in ../vendor/, see its
// README): the request body must validate against CreateChatCompletionRequest or CreateResponse, and
// a top-level field the document does not define is refused as the API refuses it. A failure is
// answered in the wording of the API's validation errors (message, param, code).
import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import snapshot from "../vendor/openai-openapi.schemas.json";
import type { Broken, Rule } from "./types.ts";

export type OpenAiEndpoint = "chat" | "responses";

const ROOT: Record<OpenAiEndpoint, string> = { chat: "CreateChatCompletionRequest", responses: "CreateResponse" };
const SOURCE = "https://github.com/openai/openai-openapi (openapi.json, see test/fakes/vendor/README.md)";

/**
 * Where the document is stricter than the API, the API wins, with the evidence: an assistant message
 * written by the client (`output_text` without the server's `id`, `status`, `annotations`, `logprobs`)
 * is accepted by the API (Codex replays its history that way) and OpenAI tracks the document's error
 * in https://github.com/openai/openai-openapi/issues/565.
 */
function relaxed(defs: Record<string, any>): Record<string, any> {
  return {
    ...defs,
    OutputMessage: { ...defs.OutputMessage, required: ["type", "role", "content"] },
    OutputTextContent: { ...defs.OutputTextContent, required: ["type", "text"] },
  };
}

let compiled: Record<OpenAiEndpoint, { validate: ValidateFunction; fields: Set<string> }> | null = null;

function compile() {
  if (compiled) return compiled;
  // strict: false — the document carries OpenAPI-only keywords (discriminator) that JSON Schema ignores.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const defs = relaxed((snapshot as { $defs: Record<string, any> }).$defs);
  ajv.addSchema({ ...snapshot, $defs: defs }, "openai");
  const fieldsOf = (schema: any, into: Set<string>): Set<string> => {
    if (schema?.$ref) fieldsOf(defs[schema.$ref.split("/").pop()], into);
    for (const part of schema?.allOf ?? []) fieldsOf(part, into);
    for (const name of Object.keys(schema?.properties ?? {})) into.add(name);
    return into;
  };
  const entry = (e: OpenAiEndpoint) => ({ validate: ajv.getSchema(`openai#/$defs/${ROOT[e]}`)!, fields: fieldsOf(defs[ROOT[e]], new Set()) });
  compiled = { chat: entry("chat"), responses: entry("responses") };
  return compiled;
}

/** `/messages/0/content` -> `messages[0].content`, the way the API names a param. */
function paramOf(path: string, extra?: string): string {
  const parts = path.split("/").slice(1).concat(extra ? [extra] : []);
  return parts.reduce((out, p) => (/^\d+$/.test(p) ? `${out}[${p}]` : out ? `${out}.${p}` : p), "");
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (Number.isInteger(value)) return "an integer";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

const article = (t: string) => (t === "integer" || t === "array" || t === "object" ? `an ${t}` : `a ${t}`);

/**
 * The error a user would see for the most specific failure. Alternatives of a union whose `type` or
 * `role` does not match the value are discarded first (the API picks the alternative by that tag).
 */
function pick(errors: ErrorObject[], body: unknown): Broken {
  const wrongBranches = errors
    .filter((e) => (e.keyword === "enum" || e.keyword === "const") && /\/(type|role)$/.test(e.instancePath))
    .map((e) => e.schemaPath.replace(/\/properties\/(type|role)\/(enum|const)$/, "/"));
  const kept = errors.filter((e) => e.keyword !== "anyOf" && e.keyword !== "oneOf" && !wrongBranches.some((b) => e.schemaPath.startsWith(b)));
  const candidates = kept.length > 0 ? kept : errors;
  const depth = (e: ErrorObject) => e.instancePath.split("/").length + (e.keyword === "required" ? 1 : 0);
  const best = candidates.reduce((a, b) => (depth(b) > depth(a) ? b : a));
  const value = best.instancePath.split("/").slice(1).reduce((v: any, k) => v?.[k], body);
  const param = paramOf(best.instancePath);
  switch (best.keyword) {
    case "required": {
      const missing = paramOf(best.instancePath, (best.params as { missingProperty: string }).missingProperty);
      return { message: `Missing required parameter: '${missing}'.`, param: missing, code: "missing_required_parameter" };
    }
    case "type": {
      const t = String((best.params as { type: string | string[] }).type).split(",")[0]!;
      return { message: `Invalid type for '${param}': expected ${article(t)}, but got ${describe(value)} instead.`, param, code: "invalid_type" };
    }
    case "enum":
    case "const": {
      const allowed = ((best.params as { allowedValues?: unknown[]; allowedValue?: unknown }).allowedValues ?? [(best.params as { allowedValue?: unknown }).allowedValue]).filter((v) => v !== null);
      return { message: `Invalid value: '${String(value)}'. Supported values are: ${allowed.map((v) => `'${String(v)}'`).join(", ")}.`, param, code: "invalid_value" };
    }
    case "minimum":
    case "maximum": {
      const { limit } = best.params as { limit: number };
      const below = best.keyword === "minimum";
      return { message: `Invalid '${param}': ${Number.isInteger(value) ? "integer" : "decimal"} ${below ? "below minimum" : "above maximum"} value. Expected a value ${below ? ">=" : "<="} ${limit}, but got ${String(value)} instead.`, param, code: below ? "integer_below_min_value" : "integer_above_max_value" };
    }
    case "additionalProperties": {
      const extra = paramOf(best.instancePath, (best.params as { additionalProperty: string }).additionalProperty);
      return { message: `Unknown parameter: '${extra}'.`, param: extra, code: "unknown_parameter" };
    }
    default:
      return { message: `Invalid '${param}': ${best.message}.`, param, code: "invalid_value" };
  }
}

/** The check of one endpoint's request body against the official document. */
export function validateOpenAiRequest(endpoint: OpenAiEndpoint, body: unknown): Broken | null {
  const { validate, fields } = compile()[endpoint];
  if (body && typeof body === "object" && !Array.isArray(body)) {
    const extra = Object.keys(body).find((k) => !fields.has(k));
    if (extra)
      return endpoint === "chat"
        ? { message: `Unrecognized request argument supplied: ${extra}` }
        : { message: `Unknown parameter: '${extra}'.`, param: extra, code: "unknown_parameter" };
  }
  return validate(body) ? null : pick(validate.errors ?? [], body);
}

export function openAiSchemaRule(endpoint: OpenAiEndpoint): Rule {
  return { id: `openai.schema.${endpoint}`, source: SOURCE, check: ({ body }) => validateOpenAiRequest(endpoint, body) };
}
