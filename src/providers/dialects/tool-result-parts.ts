// A tool result with images, in each dialect's own form. Shapes follow the official SDKs' request types:
// @anthropic-ai/sdk ToolResultBlockParam.content (text and image blocks), openai Responses
// FunctionCallOutput.output (ResponseFunctionCallOutputItemList: input_text / input_image) and Chat
// Completions ChatCompletionToolMessageParam.content (text parts only, hence the user message).
import type { ImagePart, ToolResult } from "../request.ts";

type Block = Record<string, unknown>;

const dataUrl = (image: ImagePart) => `data:${image.media_type};base64,${image.data_base64}`;

/** Messages: a `tool_result` block; with images its content is a list of text and image blocks. */
export function messagesToolResult(r: ToolResult): Block {
  const images = r.images ?? [];
  const content: string | Block[] =
    images.length === 0
      ? r.output
      : [
          // Empty text blocks are refused ("text content blocks must be non-empty").
          ...(r.output.length > 0 ? [{ type: "text", text: r.output }] : []),
          ...images.map((i) => ({ type: "image", source: { type: "base64", media_type: i.media_type, data: i.data_base64 } })),
        ];
  return { type: "tool_result", tool_use_id: r.call_id, content, ...(r.is_error ? { is_error: true } : {}) };
}

/** Responses: a `function_call_output` item; with images its output is a list of input_text and input_image. */
export function responsesToolOutput(r: ToolResult): Block {
  const images = r.images ?? [];
  const output: string | Block[] =
    images.length === 0
      ? r.output
      : [...(r.output.length > 0 ? [{ type: "input_text", text: r.output }] : []), ...images.map((i) => ({ type: "input_image", image_url: dataUrl(i) }))];
  return { type: "function_call_output", call_id: r.call_id, output };
}

/**
 * Chat Completions: one `tool` message per result (text only: the API and the OpenAI-compatible servers
 * take nothing else there), then, when some result had images, one user message carrying them, each group
 * introduced by the call it came from. It directly follows the tool messages, which must come right after
 * the assistant message that made the calls.
 */
export function chatToolMessages(results: readonly ToolResult[]): Block[] {
  const messages: Block[] = [];
  const parts: Block[] = [];
  for (const r of results) {
    const images = r.images ?? [];
    if (images.length === 0) {
      messages.push({ role: "tool", tool_call_id: r.call_id, content: r.output });
      continue;
    }
    const note = `[${images.length === 1 ? "the image of this result follows" : `${images.length} images of this result follow`} in the next user message]`;
    messages.push({ role: "tool", tool_call_id: r.call_id, content: r.output.length > 0 ? `${r.output}\n${note}` : note });
    parts.push({ type: "text", text: `Image${images.length === 1 ? "" : "s"} returned by tool call ${r.call_id}:` });
    for (const i of images) parts.push({ type: "image_url", image_url: { url: dataUrl(i) } });
  }
  if (parts.length > 0) messages.push({ role: "user", content: parts });
  return messages;
}
