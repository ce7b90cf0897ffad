// `agent exec --image FILE`: image files attached to the prompt as image parts of the user message. The
// format is read from the file's first bytes (an extension can lie), and the size is capped as every
// image the model receives is (MAX_IMAGE_BASE64: the strictest vendor's limit).
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { formatBytes, imageType } from "../tools/file-content.ts";
import { base64Length, MAX_IMAGE_BASE64 } from "../tools/tool.ts";
import { CliError } from "../util/cli-command.ts";

/** As many images as one prompt may carry through the daemon (sync-shapes.ts: `images` maxItems). */
export const MAX_PROMPT_IMAGES = 16;

export interface PromptImage {
  media_type: string;
  data_base64: string;
}

export function readPromptImages(files: string[], cwd: string): PromptImage[] {
  if (files.length > MAX_PROMPT_IMAGES) throw new CliError(`--image: ${files.length} images given; a prompt takes at most ${MAX_PROMPT_IMAGES}`);
  return files.map((file) => {
    const path = resolve(cwd, file);
    let size: number;
    try {
      const stat = statSync(path);
      if (!stat.isFile()) throw new CliError(`--image ${file}: not a file`);
      size = stat.size;
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw new CliError(`--image ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    if (base64Length(size) > MAX_IMAGE_BASE64) {
      throw new CliError(`--image ${file}: ${formatBytes(size)} is over the ${formatBytes((MAX_IMAGE_BASE64 / 4) * 3)} an image may have (${formatBytes(MAX_IMAGE_BASE64)} as base64); make it smaller`);
    }
    const bytes = readFileSync(path);
    const type = imageType(bytes);
    if (!type) throw new CliError(`--image ${file}: not an image: its first bytes are not those of a PNG, JPEG, GIF or WebP file`);
    return { media_type: type, data_base64: bytes.toString("base64") };
  });
}
