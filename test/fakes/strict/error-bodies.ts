// Each vendor's error body for a refused request, in the shape its API reference (or a captured real
// answer, where the reference shows none) gives it.
import type { Broken, Refusal } from "./types.ts";

/** Anthropic Messages (and the Messages-compatible endpoints): https://docs.anthropic.com/en/api/errors */
export function anthropicError(b: Broken, type = "invalid_request_error"): Refusal {
  return { status: b.status ?? 400, body: { type: "error", error: { type, message: b.message }, request_id: "req_fake" } };
}

/** OpenAI: https://platform.openai.com/docs/guides/error-codes; every field present, null when unset. */
export function openaiError(b: Broken): Refusal {
  return { status: b.status ?? 400, body: { error: { message: b.message, type: "invalid_request_error", param: b.param ?? null, code: b.code ?? null } } };
}

/** DeepSeek answers OpenAI's shape with `code` repeating the type (captured answers, api-docs.deepseek.com/quick_start/error_codes). */
export function deepseekError(b: Broken): Refusal {
  return { status: b.status ?? 400, body: { error: { message: b.message, type: "invalid_request_error", param: b.param ?? null, code: b.code ?? "invalid_request_error" } } };
}

/** Moonshot, Groq, Together, Fireworks, Hugging Face, Cerebras: `{error: {message, type}}` (platform.moonshot.ai/docs/api/chat, console.groq.com/docs/errors). */
export function messageTypeError(b: Broken): Refusal {
  return { status: b.status ?? 400, body: { error: { message: b.message, type: "invalid_request_error", ...(b.param ? { param: b.param } : {}), ...(b.code ? { code: b.code } : {}) } } };
}

/** xAI: `{code, error}` with the gRPC status text as code (docs.x.ai/docs/key-information/debugging). */
export function xaiError(b: Broken): Refusal {
  return { status: b.status ?? 400, body: { code: "Client specified an invalid argument", error: b.message } };
}

/**
 * Mistral: a request-schema failure is FastAPI's 422 with `detail`; other refusals are 400 with a
 * message, a type naming the family and a numeric code (captured answers, docs.mistral.ai/api).
 */
export function mistralError(b: Broken): Refusal {
  if (b.code === "extra_forbidden")
    return {
      status: b.status ?? 422,
      body: { object: "error", message: { detail: [{ type: b.code, loc: ["body", ...(b.param ? b.param.split(".") : [])], msg: b.message }] }, type: "invalid_request_error", param: null, code: null },
    };
  return { status: b.status ?? 400, body: { object: "error", message: b.message, type: b.type ?? "invalid_request_error", param: null, code: b.code ?? null } };
}

/** Gemini's OpenAI-compatible endpoint: Google's status envelope, in a one-element array (ai.google.dev/gemini-api/docs/troubleshooting). */
export function geminiError(b: Broken): Refusal {
  return { status: b.status ?? 400, body: [{ error: { code: b.status ?? 400, message: b.message, status: "INVALID_ARGUMENT" } }] };
}

/** OpenRouter: `{error: {code, message, metadata?}}` with the HTTP status as code (openrouter.ai/docs/api-reference/errors). */
export function openrouterError(b: Broken): Refusal {
  return { status: b.status ?? 400, body: { error: { code: b.status ?? 400, message: b.message } } };
}

/** DashScope compatible mode: OpenAI's envelope with DashScope's codes (alibabacloud.com/help/en/model-studio/error-code). */
export function dashscopeError(b: Broken): Refusal {
  return {
    status: b.status ?? 400,
    body: { error: { code: b.code ?? "invalid_parameter_error", param: b.param ?? null, message: b.message, type: "invalid_request_error" }, id: "chatcmpl-fake", request_id: "fake-request" },
  };
}

/** Z.ai: `{error: {code, message}}` with Z.ai's numeric business code as a string (docs.z.ai/api-reference/api-code). */
export function zaiError(b: Broken): Refusal {
  return { status: b.status ?? 400, body: { error: { code: b.code ?? "1210", message: b.message } } };
}

/** vLLM, llama.cpp, Ollama, LM Studio: OpenAI's envelope as each server's OpenAI-compatible layer writes it. */
export function localServerError(b: Broken): Refusal {
  return { status: b.status ?? 400, body: { error: { message: b.message, type: "BadRequestError", param: b.param ?? null, code: b.status ?? 400 } } };
}
