// Ink turns raw mode on in an effect of useInput, which runs after its first frame is written: a key
// pressed in between went to the terminal's line discipline (Ctrl+D taken as end of input and the view
// left open, Ctrl+C as SIGINT, letters echoed). Raw mode is turned on before render() instead; the keys
// then wait in the terminal's buffer until Ink reads them.

/** The parts of stdin used (tests pass fakes). */
export type RawStdin = Pick<NodeJS.ReadStream, "isTTY" | "isRaw" | "setRawMode">;

/**
 * Turns raw mode on when stdin is a terminal (nothing otherwise: a pipe has no raw mode). The returned
 * function turns it off again; call it after Ink has exited (Ink turns it off itself when its input hooks
 * release it, so this only matters for a view that never took input or failed before drawing).
 */
export function rawBeforeFirstFrame(stdin: RawStdin): () => void {
  if (stdin.isTTY !== true || typeof stdin.setRawMode !== "function" || stdin.isRaw) return () => {};
  stdin.setRawMode(true);
  return () => {
    if (stdin.isRaw) stdin.setRawMode(false);
  };
}
