// A tool result with an image, in each dialect's native form. The expected shapes are typed with the
// official SDKs' request types, so the compiler checks them against the vendors' published contracts:
// Anthropic ToolResultBlockParam (content: text and image blocks), OpenAI Responses FunctionCallOutput
// (output: input_text / input_image list), Chat Completions ChatCompletionToolMessageParam (text only)
// followed by a ChatCompletionUserMessageParam with image_url parts.
import { expect, test } from "bun:test";
import type { ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages/messages";
import type { ChatCompletionToolMessageParam, ChatCompletionUserMessageParam } from "openai/resources/chat/completions/completions";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { buildMessagesBody } from "../../src/providers/dialects/a-messages.ts";
import { buildChatBody } from "../../src/providers/dialects/b-chat-completions.ts";
import { buildResponsesBody } from "../../src/providers/dialects/b-responses.ts";
import { PROTOCOL_INFO } from "../../src/providers/protocols.ts";
import type { ProviderRequest, ToolResult } from "../../src/providers/request.ts";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const JPEG = "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wAALCAABAAEBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAACf/EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AKp//2Q==";

function request(results: ToolResult[]): ProviderRequest {
  return {
    model: "m",
    system: null,
    messages: [
      { role: "user", content: [{ type: "text", text: "look at the pictures" }] },
      {
        role: "assistant",
        content: results.map((r) => ({ type: "tool_call" as const, id: r.call_id, name: "read", arguments: { path: `${r.call_id}.png` } })),
      },
      { role: "tool_results", results },
      { role: "user", content: [{ type: "text", text: "and then?" }] },
    ],
    tools: [{ name: "read", description: "d", input_schema: { type: "object" } }],
    max_output_tokens: 100,
    stop_sequences: [],
    reasoning: null,
    request_options: {},
  };
}

const withImage: ToolResult = { call_id: "c1", output: "Image `a.png` (image/png, 70 bytes).", images: [{ type: "image", media_type: "image/png", data_base64: PNG }] };
const plain: ToolResult = { call_id: "c2", output: "1| hello" };
/** An MCP screenshot: two images and no text. */
const imagesOnly: ToolResult = {
  call_id: "c3",
  output: "",
  images: [
    { type: "image", media_type: "image/png", data_base64: PNG },
    { type: "image", media_type: "image/jpeg", data_base64: JPEG },
  ],
};

test("Messages: the tool_result's content is a list of a text block and a base64 image block", () => {
  const body = buildMessagesBody(request([withImage, plain, imagesOnly]), "provider_managed") as any;
  const expected: ToolResultBlockParam[] = [
    {
      type: "tool_result",
      tool_use_id: "c1",
      content: [
        { type: "text", text: "Image `a.png` (image/png, 70 bytes)." },
        { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
      ],
    },
    // Results without images keep the plain string content.
    { type: "tool_result", tool_use_id: "c2", content: "1| hello" },
    // No empty text block: the API refuses one.
    {
      type: "tool_result",
      tool_use_id: "c3",
      content: [
        { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
        { type: "image", source: { type: "base64", media_type: "image/jpeg", data: JPEG } },
      ],
    },
  ];
  expect(body.messages.map((m: any) => m.role)).toEqual(["user", "assistant", "user"]);
  expect(body.messages[2].content.slice(0, 3)).toEqual(expected);
  expect(body.messages[2].content[3]).toEqual({ type: "text", text: "and then?" });
});

test("Messages: a cache breakpoint on a tool_result with images sits on the tool_result block", () => {
  const req = request([withImage]);
  req.messages.pop();
  const body = buildMessagesBody(req, "breakpoints") as any;
  const last = body.messages.at(-1).content.at(-1);
  expect(last.type).toBe("tool_result");
  expect(last.cache_control).toEqual({ type: "ephemeral" });
  expect(last.content[1].cache_control).toBeUndefined();
});

test("Responses: function_call_output's output is a list of input_text and input_image (data URL)", () => {
  const body = buildResponsesBody(request([withImage, plain, imagesOnly])) as any;
  const expected: ResponseInputItem.FunctionCallOutput[] = [
    {
      type: "function_call_output",
      call_id: "c1",
      output: [
        { type: "input_text", text: "Image `a.png` (image/png, 70 bytes)." },
        { type: "input_image", image_url: `data:image/png;base64,${PNG}` },
      ],
    },
    { type: "function_call_output", call_id: "c2", output: "1| hello" },
    {
      type: "function_call_output",
      call_id: "c3",
      output: [
        { type: "input_image", image_url: `data:image/png;base64,${PNG}` },
        { type: "input_image", image_url: `data:image/jpeg;base64,${JPEG}` },
      ],
    },
  ];
  expect(body.input.filter((i: any) => i.type === "function_call_output")).toEqual(expected);
});

test("Chat Completions: text-only tool messages, then one user message with the images, before the next prompt", () => {
  const body = buildChatBody(request([withImage, plain, imagesOnly]), PROTOCOL_INFO.b_chat_completions) as any;
  const tools: ChatCompletionToolMessageParam[] = [
    { role: "tool", tool_call_id: "c1", content: "Image `a.png` (image/png, 70 bytes).\n[the image of this result follows in the next user message]" },
    { role: "tool", tool_call_id: "c2", content: "1| hello" },
    { role: "tool", tool_call_id: "c3", content: "[2 images of this result follow in the next user message]" },
  ];
  const images: ChatCompletionUserMessageParam = {
    role: "user",
    content: [
      { type: "text", text: "Image returned by tool call c1:" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
      { type: "text", text: "Images returned by tool call c3:" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
      { type: "image_url", image_url: { url: `data:image/jpeg;base64,${JPEG}` } },
    ],
  };
  expect(body.messages.map((m: any) => m.role)).toEqual(["user", "assistant", "tool", "tool", "tool", "user", "user"]);
  expect(body.messages.slice(2, 6)).toEqual([...tools, images]);
  expect(body.messages[6]).toEqual({ role: "user", content: "and then?" });
  // Every tool message's content is text: the API takes nothing else there.
  for (const m of body.messages.filter((m: any) => m.role === "tool")) expect(typeof m.content).toBe("string");
});

test("results without images are sent as before in every dialect", () => {
  const req = request([plain]);
  expect((buildMessagesBody(req, "provider_managed") as any).messages[2].content[0]).toEqual({ type: "tool_result", tool_use_id: "c2", content: "1| hello" });
  expect((buildResponsesBody(req) as any).input.find((i: any) => i.type === "function_call_output")).toEqual({ type: "function_call_output", call_id: "c2", output: "1| hello" });
  const chat = buildChatBody(req, PROTOCOL_INFO.b_chat_completions) as any;
  expect(chat.messages.map((m: any) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
});
