// Anthropic Messages API: what the first-party endpoint (and Claude on Microsoft Foundry, which serves
// the same API) refuses, with the message it answers. Model families follow Anthropic's published ids:
// `claude-<family>-<major>[-<minor>][-<date>]` and the older `claude-<major>-<minor>-<family>-<date>`.
import { type Rule, family } from "./types.ts";
import { contentBlocks } from "./messages-shape.ts";

const DOCS = "https://platform.claude.com/docs/en";
const SRC = {
  messages: `${DOCS}/api/messages`,
  versioning: `${DOCS}/api/versioning`,
  adaptive: `${DOCS}/build-with-claude/adaptive-thinking`,
  extended: `${DOCS}/build-with-claude/extended-thinking`,
  effort: `${DOCS}/build-with-claude/effort`,
  caching: `${DOCS}/build-with-claude/prompt-caching`,
  toolUse: `${DOCS}/agents-and-tools/tool-use/implement-tool-use`,
  vision: `${DOCS}/build-with-claude/vision`,
};

/** Claude's generation as a number (4.5, 4.6, 5) from a published model id; null for other ids. */
export function claudeGeneration(model: string): number | null {
  const id = model.replace(/^.*\//, "");
  if (/^claude-mythos-preview/.test(id)) return 4.7; // documented with Opus 4.7: adaptive only
  let m = /^claude-(?:opus|sonnet|haiku|fable|mythos)-(\d+)(?:-(\d))?(?=$|[-@.])/.exec(id);
  if (m) return Number(m[1]) + (m[2] ? Number(m[2]) / 10 : 0);
  m = /^claude-(\d+)(?:-(\d))?-(?:opus|sonnet|haiku)/.exec(id);
  if (m) return Number(m[1]) + (m[2] ? Number(m[2]) / 10 : 0);
  return null;
}

const generation = (name: string, test: (g: number, id: string) => boolean) =>
  family(name, (model) => {
    const g = claudeGeneration(model);
    return g !== null && test(g, model.replace(/^.*\//, ""));
  });

/** Claude Opus 4.7 and later, Mythos, Fable 5, Sonnet 5: adaptive thinking only. */
export const ADAPTIVE_ONLY = generation("Claude 4.7 and later", (g) => g >= 4.7);
/** Before Opus/Sonnet 4.6: budget thinking only. */
export const BEFORE_ADAPTIVE = generation("Claude before 4.6", (g) => g < 4.6);
/** Effort is supported from Opus 4.5 and on every 4.6+ model (not Sonnet/Haiku 4.5 or older). */
const NO_EFFORT = generation("Claude before 4.6 except Opus 4.5", (g, id) => g < 4.6 && !/^claude-opus-4-5/.test(id));
const NO_XHIGH = generation("Claude before 4.7", (g) => g < 4.7);
const NO_MAX_EFFORT = generation("Claude before 4.6", (g) => g < 4.6);

const thinkingOn = (body: any) => body?.thinking?.type === "enabled" || body?.thinking?.type === "adaptive";

/** Top-level fields of the Messages request (the reference's parameter list). */
const FIELDS = new Set([
  "model", "messages", "max_tokens", "system", "metadata", "stop_sequences", "stream", "temperature", "top_p", "top_k", "tools",
  "tool_choice", "thinking", "output_config", "service_tier", "container", "context_management", "mcp_servers", "inference_geo", "cache_control",
]);

const USER_BLOCKS = new Set(["text", "image", "document", "search_result", "tool_result", "container_upload"]);
const ASSISTANT_BLOCKS = new Set(["text", "tool_use", "thinking", "redacted_thinking", "server_tool_use", "web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result", "mcp_tool_use", "mcp_tool_result", "container_upload"]);
const TOOL_RESULT_BLOCKS = new Set(["text", "image", "search_result", "document"]);
const IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/** Rules every Messages-compatible endpoint applies (the request shape itself). */
export const MESSAGES_SHAPE_RULES: readonly Rule[] = [
  {
    id: "messages.max-tokens-required",
    source: SRC.messages,
    check: ({ body }) => (Number.isInteger(body?.max_tokens) ? null : { message: "max_tokens: Field required" }),
  },
  {
    id: "messages.tool-result-follows-tool-use",
    source: SRC.toolUse,
    check: ({ body }) => {
      const messages: any[] = body?.messages ?? [];
      for (let i = 0; i < messages.length; i++) {
        if (messages[i].role !== "assistant") continue;
        const ids = contentBlocks(messages[i]).filter((b) => b.type === "tool_use").map((b) => b.id);
        if (ids.length === 0) continue;
        const next = messages[i + 1];
        const answered = new Set(next?.role === "user" ? contentBlocks(next).filter((b) => b.type === "tool_result").map((b) => b.tool_use_id) : []);
        const missing = ids.filter((id) => !answered.has(id));
        if (missing.length > 0)
          return {
            message: `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
          };
      }
      return null;
    },
  },
  {
    id: "messages.tool-result-answers-previous-tool-use",
    source: SRC.toolUse,
    check: ({ body }) => {
      const messages: any[] = body?.messages ?? [];
      for (let i = 0; i < messages.length; i++) {
        if (messages[i].role !== "user") continue;
        const asked = new Set(i > 0 && messages[i - 1].role === "assistant" ? contentBlocks(messages[i - 1]).filter((b) => b.type === "tool_use").map((b) => b.id) : []);
        const blocks = contentBlocks(messages[i]);
        for (let k = 0; k < blocks.length; k++) {
          if (blocks[k].type === "tool_result" && !asked.has(blocks[k].tool_use_id))
            return {
              message: `messages.${i}.content.${k}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${blocks[k].tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
            };
        }
      }
      return null;
    },
  },
  {
    id: "messages.tool-results-first",
    source: SRC.toolUse,
    check: ({ body }) => {
      const messages: any[] = body?.messages ?? [];
      for (let i = 0; i < messages.length; i++) {
        if (messages[i].role !== "user") continue;
        const types = contentBlocks(messages[i]).map((b) => b.type);
        const firstOther = types.findIndex((t) => t !== "tool_result");
        if (firstOther >= 0 && types.slice(firstOther).includes("tool_result"))
          return { message: `messages.${i}: \`tool_result\` blocks must come first in the content array; any other content must follow all tool results.` };
      }
      return null;
    },
  },
  {
    id: "messages.tool-name",
    source: `${DOCS}/agents-and-tools/tool-use/implement-tool-use#specifying-client-tools`,
    check: ({ body }) => {
      const tools: any[] = Array.isArray(body?.tools) ? body.tools : [];
      const i = tools.findIndex((t) => t?.input_schema !== undefined && !/^[a-zA-Z0-9_-]{1,64}$/.test(String(t.name)));
      return i >= 0 ? { message: `tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'` } : null;
    },
  },
  {
    id: "messages.tool-input-schema-object",
    source: `${DOCS}/agents-and-tools/tool-use/implement-tool-use#specifying-client-tools`,
    check: ({ body }) => {
      const tools: any[] = Array.isArray(body?.tools) ? body.tools : [];
      const i = tools.findIndex((t) => t?.input_schema !== undefined && t.input_schema?.type !== "object");
      return i >= 0 ? { message: `tools.${i}.custom.input_schema.type: Input should be 'object'` } : null;
    },
  },
  {
    id: "messages.block-types-by-role",
    source: SRC.messages,
    check: ({ body }) => {
      if (Array.isArray(body?.system))
        for (let k = 0; k < body.system.length; k++)
          if (body.system[k]?.type !== "text") return { message: `system.${k}.type: Input should be 'text'` };
      const messages: any[] = body?.messages ?? [];
      for (let i = 0; i < messages.length; i++) {
        const role = messages[i].role;
        if (role !== "user" && role !== "assistant") return { message: `messages.${i}.role: Input should be 'user' or 'assistant'` };
        const allowed = role === "user" ? USER_BLOCKS : ASSISTANT_BLOCKS;
        const blocks = contentBlocks(messages[i]);
        for (let k = 0; k < blocks.length; k++) {
          const b = blocks[k];
          if (!allowed.has(b.type)) return { message: `messages.${i}.content.${k}: \`${b.type}\` blocks are not accepted in ${role} messages` };
          if (b.type === "tool_result" && Array.isArray(b.content))
            for (let j = 0; j < b.content.length; j++)
              if (!TOOL_RESULT_BLOCKS.has(b.content[j]?.type))
                return { message: `messages.${i}.content.${k}.content.${j}.type: Input should be 'text', 'image', 'search_result' or 'document'` };
        }
      }
      return null;
    },
  },
  {
    id: "messages.image-source",
    source: SRC.vision,
    check: ({ body }) => {
      const messages: any[] = body?.messages ?? [];
      for (let i = 0; i < messages.length; i++) {
        const blocks = contentBlocks(messages[i]);
        for (let k = 0; k < blocks.length; k++) {
          const images = blocks[k].type === "image" ? [[`${k}`, blocks[k]]] : blocks[k].type === "tool_result" && Array.isArray(blocks[k].content) ? blocks[k].content.map((c: any, j: number) => [`${k}.content.${j}`, c]).filter(([, c]: any) => c?.type === "image") : [];
          for (const [where, img] of images as [string, any][]) {
            const src = img.source ?? {};
            if (src.type === "base64" && !IMAGE_TYPES.includes(src.media_type))
              return { message: `messages.${i}.content.${where}.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'` };
            if (src.type === "base64" && (typeof src.data !== "string" || src.data.length === 0)) return { message: `messages.${i}.content.${where}.source.base64.data: Field required` };
            if (src.type !== "base64" && src.type !== "url" && src.type !== "file") return { message: `messages.${i}.content.${where}.source: Input tag '${src.type}' found using 'type' does not match any of the expected tags: 'base64', 'url', 'file'` };
          }
        }
      }
      return null;
    },
  },
  {
    id: "messages.non-empty-text",
    source: SRC.messages,
    check: ({ body }) => {
      const messages: any[] = body?.messages ?? [];
      for (let i = 0; i < messages.length; i++) {
        const m = messages[i];
        const last = i === messages.length - 1 && m.role === "assistant";
        if (!last && (m.content === "" || (Array.isArray(m.content) && m.content.length === 0)))
          return { message: `messages.${i}: all messages must have non-empty content except for the optional final assistant message` };
        if (contentBlocks(m).some((b) => b.type === "text" && b.text === "")) return { message: "messages: text content blocks must be non-empty" };
      }
      return null;
    },
  },
];

/** MiniMax's Messages-compatible endpoint: text and tool calls only, temperature in (0, 1]. */
export const MINIMAX_RULES: readonly Rule[] = [
  ...MESSAGES_SHAPE_RULES,
  {
    id: "minimax.text-and-tools-only",
    source: "https://platform.minimax.io/docs/api-reference/text-anthropic-api",
    check: ({ body }) => {
      const messages: any[] = body?.messages ?? [];
      for (let i = 0; i < messages.length; i++)
        for (const b of contentBlocks(messages[i])) {
          const inner = b.type === "tool_result" && Array.isArray(b.content) ? b.content.map((c: any) => c?.type) : [];
          const kind = [b.type, ...inner].find((t) => t === "image" || t === "document");
          if (kind) return { message: `invalid params, messages.${i}: ${kind} input is not supported` };
        }
      return null;
    },
  },
  {
    id: "minimax.temperature-range",
    source: "https://platform.minimax.io/docs/api-reference/text-anthropic-api",
    check: ({ body }) =>
      body?.temperature !== undefined && !(body.temperature > 0 && body.temperature <= 1) ? { message: "invalid params, temperature must be in (0.0, 1.0]" } : null,
  },
];

/** Rules of Anthropic's own API (first party and Foundry). */
export const ANTHROPIC_RULES: readonly Rule[] = [
  {
    id: "anthropic.version-header",
    source: SRC.versioning,
    check: ({ headers }) => (headers["anthropic-version"] ? null : { message: "anthropic-version: header is required" }),
  },
  {
    id: "anthropic.unknown-field",
    source: SRC.messages,
    check: ({ body }) => {
      const extra = Object.keys(body ?? {}).find((k) => !FIELDS.has(k));
      return extra ? { message: `${extra}: Extra inputs are not permitted` } : null;
    },
  },
  ...MESSAGES_SHAPE_RULES,
  {
    id: "anthropic.thinking-enabled-refused",
    source: SRC.adaptive,
    models: ADAPTIVE_ONLY,
    check: ({ body }) =>
      body?.thinking?.type === "enabled"
        ? { message: `"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.` }
        : null,
  },
  {
    id: "anthropic.adaptive-unsupported",
    source: SRC.adaptive,
    models: BEFORE_ADAPTIVE,
    check: ({ body }) => (body?.thinking?.type === "adaptive" ? { message: `"thinking.type.adaptive" is not supported for this model. Use "thinking.type.enabled" with "thinking.budget_tokens".` } : null),
  },
  {
    id: "anthropic.thinking-type",
    source: SRC.messages,
    check: ({ body }) =>
      body?.thinking !== undefined && !["enabled", "adaptive", "disabled"].includes(body.thinking?.type)
        ? { message: `thinking: Input tag '${body.thinking?.type}' found using 'type' does not match any of the expected tags: 'adaptive', 'disabled', 'enabled'` }
        : null,
  },
  {
    id: "anthropic.budget-minimum",
    source: SRC.extended,
    check: ({ body }) =>
      body?.thinking?.type === "enabled" && !(Number.isInteger(body.thinking.budget_tokens) && body.thinking.budget_tokens >= 1024)
        ? { message: "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024" }
        : null,
  },
  {
    id: "anthropic.budget-below-max-tokens",
    source: SRC.extended,
    check: ({ body }) =>
      body?.thinking?.type === "enabled" && body.thinking.budget_tokens >= body.max_tokens
        ? { message: "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size" }
        : null,
  },
  {
    id: "anthropic.sampling-deprecated",
    source: `${DOCS}/about-claude/models/migration-guide`,
    models: ADAPTIVE_ONLY,
    check: ({ body }) => {
      const field = body?.temperature !== undefined && body.temperature !== 1 ? "temperature" : body?.top_p !== undefined && body.top_p !== 1 ? "top_p" : body?.top_k !== undefined ? "top_k" : null;
      return field ? { message: `\`${field}\` is deprecated for this model.` } : null;
    },
  },
  {
    id: "anthropic.temperature-with-thinking",
    source: SRC.extended,
    check: ({ body }) =>
      thinkingOn(body) && body.temperature !== undefined && body.temperature !== 1
        ? { message: "`temperature` may only be set to 1 when thinking is enabled or in adaptive mode. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility" }
        : null,
  },
  {
    id: "anthropic.top-k-with-thinking",
    source: SRC.extended,
    check: ({ body }) => (thinkingOn(body) && body.top_k !== undefined ? { message: "`top_k` is not supported when thinking is enabled or in adaptive mode." } : null),
  },
  {
    id: "anthropic.top-p-with-thinking",
    source: SRC.extended,
    check: ({ body }) =>
      thinkingOn(body) && body.top_p !== undefined && !(body.top_p >= 0.95 && body.top_p <= 1)
        ? { message: "`top_p` must be between 0.95 and 1 when thinking is enabled or in adaptive mode." }
        : null,
  },
  {
    id: "anthropic.forced-tool-with-thinking",
    source: SRC.extended,
    check: ({ body }) =>
      thinkingOn(body) && (body.tool_choice?.type === "any" || body.tool_choice?.type === "tool")
        ? { message: "Thinking may not be enabled when tool_choice forces tool use." }
        : null,
  },
  {
    id: "anthropic.effort-values",
    source: SRC.effort,
    check: ({ body }) => {
      const effort = body?.output_config?.effort;
      return effort !== undefined && !["low", "medium", "high", "xhigh", "max"].includes(effort)
        ? { message: `output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'` }
        : null;
    },
  },
  {
    id: "anthropic.effort-unsupported",
    source: SRC.effort,
    models: NO_EFFORT,
    check: ({ body }) => (body?.output_config?.effort !== undefined ? { message: "This model does not support the effort parameter." } : null),
  },
  {
    id: "anthropic.effort-max-unsupported",
    source: SRC.effort,
    models: NO_MAX_EFFORT,
    check: ({ body }) => (body?.output_config?.effort === "max" ? { message: "effort 'max' is not supported by this model." } : null),
  },
  {
    id: "anthropic.effort-xhigh-unsupported",
    source: SRC.effort,
    models: NO_XHIGH,
    check: ({ body }) => (body?.output_config?.effort === "xhigh" ? { message: "effort 'xhigh' is not supported by this model." } : null),
  },
  {
    id: "anthropic.thinking-kept-in-tool-loop",
    source: `${SRC.extended}#preserving-thinking-blocks`,
    check: ({ body, emitted }) => {
      if (body?.thinking?.type !== "enabled") return null;
      const messages: any[] = body?.messages ?? [];
      const last = messages.at(-1);
      if (last?.role !== "user" || !contentBlocks(last).some((b) => b.type === "tool_result")) return null;
      const i = messages.length - 2;
      const blocks = i >= 0 && messages[i].role === "assistant" ? contentBlocks(messages[i]) : [];
      const first = blocks[0]?.type;
      // Claude with budget thinking opens every answer with thinking; only a turn this fake scripted without it is exempt.
      const scriptedWithout = (id: string) => emitted !== undefined && emitted.callIds.has(id) && !emitted.thinkingCallIds.has(id);
      const thought = blocks.some((b) => b.type === "tool_use" && !scriptedWithout(b.id));
      if (!thought || first === "thinking" || first === "redacted_thinking") return null;
      return {
        message: `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`,
      };
    },
  },
  {
    id: "anthropic.cache-breakpoints",
    source: SRC.caching,
    check: ({ body }) => {
      let found = 0;
      const count = (blocks: unknown) => Array.isArray(blocks) && blocks.forEach((b) => b?.cache_control && found++);
      count(body?.tools);
      count(body?.system);
      for (const m of body?.messages ?? []) {
        count(contentBlocks(m));
        for (const b of contentBlocks(m)) count(b.type === "tool_result" ? b.content : undefined);
      }
      return found > 4 ? { message: `A maximum of 4 blocks with cache_control may be provided. Found ${found}.` } : null;
    },
  },
];
