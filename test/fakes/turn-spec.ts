// A dialect-neutral description of one scripted model response; each dialect's builder turns it
// into that dialect's exact SSE frames.

export interface FakeToolCall {
  id: string;
  name: string;
  /** Raw JSON text of the arguments (may be deliberately invalid in negative controls). */
  arguments: string;
  /** Chat Completions: the call's `extra_content` (Gemini sends its thought signature there). */
  extra_content?: Record<string, unknown>;
}

export interface TurnSpec {
  id?: string;
  model?: string;
  reasoning?: { text: string; signature?: string; encrypted?: string; id?: string };
  text?: string;
  tool_calls?: FakeToolCall[];
  /** Wire stop/finish reason; default by content (tool use vs end of turn). */
  stop?: string;
  usage?: { input: number; output: number; cache_read?: number; cache_write?: number; reasoning?: number };
  /** Size of each text / argument delta in characters. */
  chunk?: number;
}

export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  const chars = Array.from(text); // never split a surrogate pair
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

export function frame(event: string | null, data: unknown): string {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ""}data: ${payload}\n\n`;
}
