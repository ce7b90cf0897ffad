// Ctrl+V (tui.keys.paste_image): the image on the system clipboard becomes an attachment of the next
// prompt, as /image PATH does. Terminals paste text only, so the clipboard is read with the platform's
// tool: wl-paste (Wayland), xclip (X11), pngpaste or osascript (macOS). It cannot work where the view's
// machine has no clipboard of the person's (over SSH, in a container, through `agent connect` the
// clipboard read is the remote machine's), nor without those tools: the message then says to save the
// image and use /image PATH.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { imageAttachment, MAX_IMAGE_BYTES, type Attachment } from "../image-attach.ts";

type Env = Record<string, string | undefined>;

const has = (tool: string, env: Env) => Bun.which(tool, { PATH: env.PATH ?? "" }) !== null;

/** The commands that print the clipboard's PNG on stdout here, in the order tried. */
export function clipboardReaders(platform: string, env: Env): string[][] {
  if (platform === "darwin") return has("pngpaste", env) ? [["pngpaste", "-"]] : [];
  const out: string[][] = [];
  if (env.WAYLAND_DISPLAY && has("wl-paste", env)) out.push(["wl-paste", "--no-newline", "--type", "image/png"]);
  if (env.DISPLAY && has("xclip", env)) out.push(["xclip", "-selection", "clipboard", "-t", "image/png", "-o"]);
  return out;
}

const NO_TOOL = "no clipboard image reader here: install wl-clipboard (Wayland) or xclip (X11), or pngpaste on macOS; over SSH the clipboard is not this machine's. Save the image and use /image PATH";

export function clipboardImage(platform: string = process.platform, env: Env = process.env): Attachment | { error: string } {
  const readers = clipboardReaders(platform, env);
  if (platform === "darwin" && readers.length === 0) return macOsClipboard(env);
  if (readers.length === 0) return { error: NO_TOOL };
  let why = "";
  for (const [cmd, ...args] of readers) {
    const run = spawnSync(cmd!, args, { env: env as NodeJS.ProcessEnv, maxBuffer: MAX_IMAGE_BYTES + 1, timeout: 5000 });
    if (run.status === 0 && run.stdout.length > 0) return imageAttachment(run.stdout, "clipboard image", "the clipboard");
    why = run.error ? run.error.message : `${cmd} found no PNG image on the clipboard`;
  }
  return { error: `${why}; nothing was attached` };
}

/** macOS without pngpaste: AppleScript writes the clipboard's PNG to a private temp file. */
function macOsClipboard(env: Env): Attachment | { error: string } {
  const dir = mkdtempSync(join(tmpdir(), "agent-clipboard-"));
  const file = join(dir, "clipboard.png");
  try {
    const script = [`set png to (the clipboard as «class PNGf»)`, `set f to open for access POSIX file "${file}" with write permission`, "write png to f", "close access f"];
    const run = spawnSync("osascript", script.flatMap((line) => ["-e", line]), { env: env as NodeJS.ProcessEnv, timeout: 5000 });
    if (run.status !== 0) return { error: "the clipboard holds no image (osascript could not read a PNG from it); nothing was attached" };
    return imageAttachment(readFileSync(file), "clipboard image", "the clipboard");
  } catch (error) {
    return { error: `the clipboard could not be read: ${(error as Error).message}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
