// An ACP prompt (content blocks) as the daemon's prompt: one text and the images. Resource links become
// a line naming the file (the model reads it with its own tools); embedded resources are the editor's
// view of a file (unsaved edits included), so their text goes in whole, fenced and labelled by URI.
import type { ContentBlock } from "@agentclientprotocol/sdk";

export interface DaemonPrompt {
  text: string;
  images: { media_type: string; data_base64: string }[];
}

/** Why a prompt cannot be sent (the editor gets an invalid-params error with this message). */
export class PromptContentError extends Error {}

const IMAGE_TYPE = /^image\/[a-z0-9.+-]+$/;

export function toDaemonPrompt(blocks: readonly ContentBlock[]): DaemonPrompt {
  const parts: string[] = [];
  const images: DaemonPrompt["images"] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "image":
        if (!IMAGE_TYPE.test(block.mimeType)) throw new PromptContentError(`an image of type '${block.mimeType}' cannot be sent; expected image/png, image/jpeg, image/gif or image/webp`);
        images.push({ media_type: block.mimeType, data_base64: block.data });
        break;
      case "resource_link":
        parts.push(`[${block.title ?? block.name}](${block.uri})${pathNote(block.uri)}`);
        break;
      case "resource": {
        const r = block.resource;
        if ("text" in r) parts.push(`<context uri="${r.uri}">\n${r.text}\n</context>`);
        else if (r.mimeType && IMAGE_TYPE.test(r.mimeType)) images.push({ media_type: r.mimeType, data_base64: r.blob });
        else parts.push(`[binary resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ""}, not included]`);
        break;
      }
      case "audio":
        throw new PromptContentError("audio prompts are not supported (promptCapabilities.audio is false)");
    }
  }
  const text = parts.join("\n\n").trim();
  if (text === "" && images.length === 0) throw new PromptContentError("the prompt is empty");
  // The daemon needs some text beside images.
  return { text: text === "" ? "(image)" : text, images };
}

/** A file:// link also names its path, which is what the model's tools take. */
function pathNote(uri: string): string {
  if (!uri.startsWith("file://")) return "";
  try {
    return ` (file ${decodeURIComponent(new URL(uri).pathname)})`;
  } catch {
    return "";
  }
}
