// What the screen asks of the session, through the connection's current DaemonClient. A prompt is one
// correlated operation: its context (window + operation id) is made once and every retry after a lost
// connection sends the same one, so the daemon runs it at most once. A refusal (a typed error) is final.
import { DaemonRequestError } from "../src/client/daemon-client.ts";
import type { InterrogativeAnswer } from "../src/agent/events.ts";
import type { OperationContext } from "../src/protocol/operation.ts";
import type { Connection } from "./connection.ts";
import type { ViewStore } from "./view-store.ts";

/** An image sent with a prompt (`/image PATH`), for vision models. */
export interface PromptImage {
  media_type: string;
  data_base64: string;
}

export function describeError(error: unknown): string {
  if (error instanceof DaemonRequestError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

export class SessionActions {
  constructor(
    private readonly conn: Connection,
    private readonly store: ViewStore,
    /** Aborted when the view detaches: pending retries give up quietly. */
    private readonly signal: AbortSignal,
  ) {}

  /** Resolves once the view is connected and caught up (or the view detaches). */
  private connected(): Promise<void> {
    return new Promise((resolve) => {
      const ready = () => (this.store.health.state === "connected" && !this.store.catchingUp) || this.store.health.state === "ended" || this.signal.aborted;
      if (ready()) return resolve();
      const off = this.store.subscribe(() => {
        if (!ready()) return;
        off();
        resolve();
      });
      this.signal.addEventListener("abort", () => (off(), resolve()), { once: true });
    });
  }

  /** Sends a prompt (queued by the daemon while a turn runs). Throws a DaemonRequestError when refused. */
  async prompt(text: string, images?: PromptImage[]): Promise<void> {
    let ctx: OperationContext | null = null;
    while (!this.signal.aborted) {
      if (this.store.health.state === "ended") throw new Error("the session is stopped");
      try {
        ctx ??= await this.conn.client.operationContext();
        await this.conn.client.prompt(text, { ctx, images });
        return;
      } catch (error) {
        if (error instanceof DaemonRequestError) throw error;
        // Lost connection: wait for it to come back, then send the SAME operation again.
        await this.connected();
      }
    }
  }

  async dequeueNewest(): Promise<string | null> {
    const r = await this.conn.client.dequeueNewest();
    return r.input?.text ?? null;
  }

  answer(id: string, answer: InterrogativeAnswer): Promise<unknown> {
    return this.conn.client.answer(id, answer as Record<string, unknown>);
  }

  interrupt(): Promise<unknown> {
    return this.conn.client.interrupt();
  }

  commands() {
    return this.conn.client.commands();
  }

  sessionCommand(name: string, args: string[]) {
    return this.conn.client.sessionCommand(name, args);
  }

  /** Stops the session; the daemon exits after answering. */
  stopSession(): Promise<unknown> {
    return this.conn.client.stop(true);
  }
}
