// Starts a real daemon (HTTP on 127.0.0.1) over a temp session dir with the fake engine, and offers
// small helpers to call it as a client would: authenticated fetches and an SSE frame reader.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DaemonLimits } from "../../src/daemon/limits.ts";
import { startDaemon, type RunningDaemon } from "../../src/daemon/serve.ts";
import type { CatalogSource } from "../../src/daemon/catalog.ts";
import { FakeEngine, type FakeEngineOptions } from "./fake-engine.ts";
import { StepCap } from "../fakes/step-cap.ts";

export const TOKEN = "dmn_test-token-0123456789abcdefghijklmnopqrstuvwxyz";

export interface TestClock {
  now(): number;
  advance(ms: number): void;
}

export function testClock(start = Date.parse("2026-01-01T00:00:00Z")): TestClock {
  let t = start;
  const cap = new StepCap("testClock");
  return {
    now: () => t,
    advance: (ms) => {
      cap.step();
      t += ms;
    },
  };
}

export interface Harness {
  running: RunningDaemon;
  url: string;
  dir: string;
  engine: () => FakeEngine;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  dir?: string;
  engine?: FakeEngineOptions;
  limits?: Partial<DaemonLimits>;
  clock?: TestClock;
  catalog?: CatalogSource;
  credential?: string | null;
  secrets?: string[];
}

export function tempSessionDir(): string {
  return join(mkdtempSync(join(tmpdir(), "agent-daemon-")), "session");
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dir = options.dir ?? tempSessionDir();
  let engine: FakeEngine | null = null;
  const running = await startDaemon({
    sessionDir: dir,
    project: "/tmp/project",
    credential: options.credential === undefined ? TOKEN : options.credential,
    clock: options.clock,
    limits: { heartbeatMs: 0, ...options.limits },
    reloadCatalog: (daemon) => daemon.catalog.publish(),
    engineFactory: async ({ sessionId, initialEvents }) => {
      engine = new FakeEngine(sessionId, { ...options.engine, initialEvents });
      return { engine, catalog: options.catalog, secrets: options.secrets };
    },
  });
  const auth = { Authorization: `Bearer ${TOKEN}` };
  return {
    running,
    url: running.url,
    dir,
    engine: () => engine!,
    get: (path, headers = {}) => fetch(running.url + path, { headers: { ...auth, ...headers } }),
    post: (path, body, headers = {}) =>
      fetch(running.url + path, { method: "POST", headers: { ...auth, "Content-Type": "application/json", ...headers }, body: body === undefined ? undefined : JSON.stringify(body) }),
    stop: () => running.stop(),
  };
}

export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/** Reads SSE events from a response until `stop` says enough (or the stream ends). */
export async function readSse(res: Response, stop: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let buffer = "";
  try {
    while (!stop(events)) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let at: number;
      while ((at = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const ev: SseEvent = { event: "message", data: "" };
        let isComment = true;
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) continue;
          isComment = false;
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "id") ev.id = value;
          else if (field === "event") ev.event = value;
          else if (field === "data") ev.data += value;
        }
        if (isComment) events.push({ event: "comment", data: block });
        else if (ev.event !== "message" || ev.data) events.push(ev);
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return events;
}

/** The records of every `records` frame, in order. */
export function recordsOf(events: SseEvent[]): Record<string, any>[] {
  return events.filter((e) => e.event === "records").flatMap((e) => JSON.parse(e.data).records);
}

export function newOperation(): string {
  return crypto.randomUUID();
}

/** A fresh operation context from the daemon's current snapshot (its epoch and window, a new UUID). */
export async function operationContext(h: Harness) {
  const snap = await (await h.get("/sync")).json();
  return { daemon_epoch: snap.daemon_epoch as string, window: snap.operation_window.window as string, operation: newOperation() };
}
