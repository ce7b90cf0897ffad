// The first stdout line of a daemon the bench started (`agent daemon` prints `{"port":...,"pid":...}` once it
// listens), parsed; the rest of stdout is left unread.
export async function readyLine(proc: ReturnType<typeof Bun.spawn>): Promise<{ port: number; pid: number }> {
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the process exited before its ready line");
    text += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return JSON.parse(text.split("\n")[0]!);
}
