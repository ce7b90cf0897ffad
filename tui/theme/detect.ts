// `tui.theme: auto`: is the terminal's background dark or light? First COLORFGBG (set by rxvt, Konsole
// and others: "fg;bg"), then the terminal itself: an OSC 11 query ("what is your background color?")
// followed by a DA1 query ("what are you?"). Terminals answer in order and nearly all answer DA1, so the
// DA1 reply ends the wait at once whether or not OSC 11 was understood; the timeout only covers a
// terminal that answers neither. Nothing known: dark (the common case, and ANSI names then follow the
// user's own palette).

export type Background = "dark" | "light";

/**
 * How long a terminal that answers nothing holds the first frame. Short, because it is paid on every
 * launch there; a reply later than this reaches the view as typed input, so not shorter than a slow
 * remote link's round trip.
 */
export const QUERY_TIMEOUT_MS = 150;

/** COLORFGBG's last field is the background's ANSI index: 7 and 9-15 are light, 0-6 and 8 dark. */
export function backgroundFromColorFgBg(value: string | undefined): Background | null {
  if (!value) return null;
  const bg = value.split(";").at(-1)!.trim();
  if (!/^\d{1,2}$/.test(bg)) return null;
  const n = Number(bg);
  if (n > 15) return null;
  return n === 7 || n >= 9 ? "light" : "dark";
}

const OSC11_REPLY = /\x1b\]11;rgba?:([0-9a-fA-F]{1,4})\/([0-9a-fA-F]{1,4})\/([0-9a-fA-F]{1,4})(?:\/[0-9a-fA-F]{1,4})?(?:\x07|\x1b\\)/;
const DA1_REPLY = /\x1b\[\?[\d;]*c/;

/** The background from an OSC 11 reply (`ESC ] 11 ; rgb:RRRR/GGGG/BBBB ST`), by its luminance. */
export function backgroundFromOsc11(reply: string): Background | null {
  const m = OSC11_REPLY.exec(reply);
  if (!m) return null;
  const [r, g, b] = m.slice(1, 4).map((h) => parseInt(h, 16) / (16 ** h.length - 1)) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.5 ? "light" : "dark";
}

/** The parts of a terminal's streams the query uses (tests pass fakes). */
export interface QueryStreams {
  stdin: Pick<NodeJS.ReadStream, "isTTY" | "setRawMode" | "on" | "off" | "read">;
  stdout: Pick<NodeJS.WriteStream, "isTTY" | "write">;
}

/**
 * Asks the terminal (both streams must be terminals); null when it does not say. Runs before Ink takes
 * stdin, so the replies never reach the view as keys. Reads the way Ink does ('readable' and read(), never
 * flowing mode: a stdin once resumed and paused gives Ink no more input under Bun) and leaves raw mode off.
 */
export function queryTerminalBackground({ stdin, stdout }: QueryStreams, timeoutMs = QUERY_TIMEOUT_MS): Promise<Background | null> {
  if (!stdin.isTTY || !stdout.isTTY || typeof stdin.setRawMode !== "function") return Promise.resolve(null);
  return new Promise((resolve) => {
    let received = "";
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stdin.off("readable", onReadable);
      stdin.setRawMode(false);
      resolve(backgroundFromOsc11(received));
    };
    const onReadable = () => {
      let chunk: Buffer | string | null;
      while ((chunk = stdin.read() as Buffer | string | null) !== null) received += typeof chunk === "string" ? chunk : chunk.toString("latin1");
      if (DA1_REPLY.test(received)) finish();
    };
    const timer = setTimeout(finish, timeoutMs);
    stdin.setRawMode(true);
    stdin.on("readable", onReadable);
    stdout.write("\x1b]11;?\x1b\\\x1b[c");
  });
}

/** COLORFGBG, else the terminal's answer, else dark. */
export async function detectBackground(env: Record<string, string | undefined>, streams: QueryStreams | null, timeoutMs = QUERY_TIMEOUT_MS): Promise<Background> {
  return backgroundFromColorFgBg(env.COLORFGBG) ?? (streams ? await queryTerminalBackground(streams, timeoutMs) : null) ?? "dark";
}
