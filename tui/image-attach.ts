// `/image PATH`: an image file read from this machine and sent with the next prompt (POST /prompt
// `images`), for models that can see images. The kind comes from the file's first bytes, not its name.
import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { basename, isAbsolute, resolve } from "node:path";
import type { PromptImage } from "./session-actions.ts";

/** One image's base64 may be at most 16 MiB (the prompt schema); the file at most 12 MB. */
export const MAX_IMAGE_BYTES = 12 * 1024 * 1024;

export interface Attachment {
  name: string;
  bytes: number;
  image: PromptImage;
}

function mediaType(b: Uint8Array): string | null {
  if (b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return "image/png";
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38) return "image/gif";
  if (String.fromCharCode(...b.subarray(0, 4)) === "RIFF" && String.fromCharCode(...b.subarray(8, 12)) === "WEBP") return "image/webp";
  return null;
}

/**
 * The path as typed or pasted: a terminal pastes a dragged file as its path, quoted or with `\ ` before
 * spaces; `~` is the home directory; a relative path is from where the view was started.
 */
export function typedPath(text: string, cwd: string): string {
  let p = text.trim();
  if (/^(['"]).*\1$/.test(p)) p = p.slice(1, -1);
  else p = p.replace(/\\(.)/g, "$1");
  if (p.startsWith("file://")) p = decodeURIComponent(p.slice(7));
  if (p === "~" || p.startsWith("~/")) p = homedir() + p.slice(1);
  return isAbsolute(p) ? p : resolve(cwd, p);
}

/** Reads an image file; a message a person can act on when it is not one. */
export function readImage(text: string, cwd: string): Attachment | { error: string } {
  const path = typedPath(text, cwd);
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) return { error: `${path} is not a file` };
    size = st.size;
  } catch {
    return { error: `no file at ${path}` };
  }
  if (size > MAX_IMAGE_BYTES) return { error: `${path} is ${(size / 1e6).toFixed(1)} MB; an image may be at most ${MAX_IMAGE_BYTES / 1e6} MB` };
  return imageAttachment(readFileSync(path), basename(path), path);
}

/** Image bytes as an attachment (`what` names them in the error: a path, the clipboard). */
export function imageAttachment(bytes: Uint8Array, name: string, what: string): Attachment | { error: string } {
  if (bytes.length > MAX_IMAGE_BYTES) return { error: `${what} holds ${(bytes.length / 1e6).toFixed(1)} MB; an image may be at most ${MAX_IMAGE_BYTES / 1e6} MB` };
  const type = mediaType(bytes);
  if (!type) return { error: `${what} is not a PNG, JPEG, GIF or WebP image` };
  return { name, bytes: bytes.length, image: { media_type: type, data_base64: Buffer.from(bytes).toString("base64") } };
}
