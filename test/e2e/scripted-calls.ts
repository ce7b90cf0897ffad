// The scripted model's tool calls and turns for e2e tests that drive the compiled binary through a
// provider fake: numbered call ids, one text answer or one answer with calls per step.
import type { FakeStep } from "../fakes/provider-fake.ts";

export interface ScriptedCall {
  id: string;
  name: string;
  arguments: string;
}

export function scriptedCalls() {
  let callNumber = 0;
  const call = (name: string, args: unknown): ScriptedCall => ({ id: `call_${++callNumber}`, name, arguments: JSON.stringify(args) });
  const turn = (text: string, calls: ScriptedCall[] = []): FakeStep => ({ kind: "turn", turn: calls.length > 0 ? { text, tool_calls: calls } : { text } });
  return { call, turn };
}

/** Sends SIGTERM to every daemon pid a test file recorded (some ended already). */
export function stopDaemons(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
}
