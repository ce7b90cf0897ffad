// Images in the conversation as the provider sees it: tool-result images for a vision model, a note for
// one that cannot see, the newest images within one request's budget, and a compaction transcript that
// names images without carrying their bytes.
import { describe, expect, test } from "bun:test";
import type { Conversation, ConversationEntry } from "../../src/agent/conversation.ts";
import { IMAGE_OMITTED, MAX_REQUEST_IMAGE_BASE64, MAX_REQUEST_IMAGES, toProviderMessages } from "../../src/agent/provider-messages.ts";
import { renderTranscript } from "../../src/agent/compaction/transcript.ts";
import type { ConversationMessage } from "../../src/providers/request.ts";
import { MAX_IMAGE_BASE64 } from "../../src/tools/tool.ts";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const image = (data = PNG) => ({ media_type: "image/png", data_base64: data });

/** `n` read calls, each answered with one image (the i-th image's data is `data(i)`). */
function readTurns(n: number, data: (i: number) => string = () => PNG): Conversation {
  const entries: ConversationEntry[] = [{ id: "u0", role: "user", origin: "prompt", content: [{ type: "text", text: "look" }], created_at: 0 }];
  for (let i = 0; i < n; i++) {
    entries.push({ id: `a${i}`, role: "assistant", model: "m", content: [{ id: `p${i}`, type: "tool_call", call_id: `c${i}`, name: "read", arguments: { path: `${i}.png` } }], usage: null, created_at: 0 });
    entries.push({ id: `t${i}`, role: "tool_results", results: [{ call_id: `c${i}`, name: "read", status: "completed", output: `Image \`${i}.png\`.`, images: [image(data(i))] }], created_at: 0 });
  }
  return { entries };
}

const results = (messages: ConversationMessage[]) => messages.flatMap((m) => (m.role === "tool_results" ? m.results : []));

describe("tool-result images to the provider", () => {
  test("a vision model gets the images; a model that cannot see gets the note instead", () => {
    const conversation = readTurns(1);
    expect(results(toProviderMessages(conversation, true))).toEqual([{ call_id: "c0", output: "Image `0.png`.", images: [{ type: "image", ...image() }] }]);
    expect(results(toProviderMessages(conversation, false))).toEqual([{ call_id: "c0", output: `Image \`0.png\`.\n${IMAGE_OMITTED}` }]);
    // The conversation itself keeps its images (a later switch back to a vision model sends them).
    expect((conversation.entries[2] as { results: { images?: unknown[] }[] }).results[0]!.images).toHaveLength(1);
  });

  test(`a request carries the ${MAX_REQUEST_IMAGES} newest images; older ones become a note`, () => {
    const sent = results(toProviderMessages(readTurns(MAX_REQUEST_IMAGES + 2), true));
    expect(sent.filter((r) => r.images).map((r) => r.call_id)).toEqual(Array.from({ length: MAX_REQUEST_IMAGES }, (_, i) => `c${i + 2}`));
    for (const r of sent.slice(0, 2)) expect(r.output).toMatch(/^Image `\d\.png`\.\n\[image omitted: a request carries only the 20 newest images/);
  });

  test("past the byte budget the older images become a note too, and no older one slips in after", () => {
    const big = "A".repeat(MAX_IMAGE_BASE64);
    // Newest first: four of the largest images fill the budget, the fifth does not fit, and the small oldest one stays out too.
    expect(MAX_REQUEST_IMAGE_BASE64 / MAX_IMAGE_BASE64).toBe(4);
    const sent = results(toProviderMessages(readTurns(6, (i) => (i === 0 ? PNG : big)), true));
    expect(sent.map((r) => (r.images ? "image" : "note"))).toEqual(["note", "note", "image", "image", "image", "image"]);
  });

  test("prompt images count in the same budget, newest first", () => {
    const conversation = readTurns(MAX_REQUEST_IMAGES);
    conversation.entries.push({ id: "u1", role: "user", origin: "prompt", content: [{ type: "text", text: "and this" }, { type: "image", ...image() }], created_at: 0 });
    const messages = toProviderMessages(conversation, true);
    const last = messages.at(-1)!;
    expect(last.role === "user" && last.content[1]!.type).toBe("image");
    // The oldest tool image made room for it.
    expect(results(messages)[0]!.images).toBeUndefined();
    expect(results(messages)[1]!.images).toHaveLength(1);
  });
});

test("the compaction transcript names a result's images and carries none of their bytes", () => {
  const t = renderTranscript(readTurns(2).entries, 0, 100_000);
  expect(t.text).toContain("[result of read: completed] [an image not shown]\nImage `1.png`.");
  expect(t.text).not.toContain(PNG);
});

test("an image over 5 MiB of base64 is never sent (a prompt's, or one stored before the cap), and takes no room", () => {
  const huge = "A".repeat(MAX_IMAGE_BASE64 + 4);
  const conversation = readTurns(2, (i) => (i === 0 ? huge : PNG));
  conversation.entries.push({ id: "u1", role: "user", origin: "prompt", content: [{ type: "image", ...image(huge) }, { type: "text", text: "see" }], created_at: 0 });
  const messages = toProviderMessages(conversation, true);
  const note = "[image omitted: 5.0 MB of base64, over the 5.0 MB one image may have]";
  expect(messages.at(-1)).toEqual({ role: "user", content: [{ type: "text", text: note }, { type: "text", text: "see" }] });
  const sent = results(messages);
  expect(sent[0]).toEqual({ call_id: "c0", output: `Image \`0.png\`.\n${note}` });
  expect(sent[1]!.images).toHaveLength(1);
  expect(JSON.stringify(messages)).not.toContain(huge);
});
