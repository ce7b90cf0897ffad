// The turn's thread's side of trace export: the SpanExporter under the SDK's BatchSpanProcessor, which
// packs each batch (export-wire.ts), posts it to the export worker (export-worker.ts) and reports the
// batch's result when the worker answers. A worker that dies never takes the process with it: its
// batches and every later one are dropped, with one warning.
import { existsSync } from "node:fs";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";
import { packSpans, type FromWorker, type ToWorker } from "./export-wire.ts";

type ExportCallback = Parameters<SpanExporter["export"]>[1];
/** ExportResultCode of @opentelemetry/core. */
const SUCCESS = 0;
const FAILED = 1;

/**
 * The worker module: beside this file when running from source; inside the compiled binary it is a
 * separate entrypoint (see build.ts) under /$bunfs/root, at its path relative to the entrypoints' common root.
 */
function exportWorkerUrl(): string {
  if (!import.meta.url.includes("$bunfs")) return new URL("./export-worker.ts", import.meta.url).href;
  const candidates = ["/$bunfs/root/telemetry/export-worker.js", "/$bunfs/root/src/telemetry/export-worker.js"];
  return candidates.find((c) => existsSync(c)) ?? candidates[0]!;
}

export interface WorkerExporterOptions {
  init: Extract<ToWorker, { type: "init" }>;
  /** Told once if the worker dies. */
  warn?: (message: string) => void;
  /** Another worker module (tests start one that fails). */
  workerUrl?: string;
}

export class WorkerSpanExporter implements SpanExporter {
  private readonly worker: Worker;
  private readonly pending = new Map<number, (ok: boolean) => void>();
  private nextId = 1;
  private state: "running" | "stopped" | "dead" = "running";

  constructor(private readonly options: WorkerExporterOptions) {
    this.worker = new Worker(options.workerUrl ?? exportWorkerUrl());
    this.worker.onmessage = (event: MessageEvent<FromWorker>) => this.settle(event.data.id, event.data.ok);
    // The error event's text quotes the worker's source and message, which may hold anything (a URL
    // with credentials, a header): it is not passed on.
    this.worker.addEventListener("error", (event) => {
      event.preventDefault();
      this.died();
    });
    this.worker.addEventListener("close", () => this.died());
    // The worker never keeps a process alive by itself: a flush or shutdown waiting for it has a timer.
    (this.worker as Worker & { unref(): void }).unref();
    this.worker.postMessage(options.init);
  }

  export(spans: ReadableSpan[], done: ExportCallback): void {
    if (this.state !== "running") return done({ code: FAILED });
    const id = this.nextId++;
    this.pending.set(id, (ok) => done({ code: ok ? SUCCESS : FAILED }));
    this.worker.postMessage({ type: "export", id, spans: packSpans(spans) } satisfies ToWorker);
  }

  /** Waits until the worker has finished its exports (the caller bounds the wait), then ends it. */
  async shutdown(): Promise<void> {
    if (this.state !== "running") return;
    const id = this.nextId++;
    const acked = new Promise<boolean>((resolve) => this.pending.set(id, resolve));
    this.worker.postMessage({ type: "shutdown", id } satisfies ToWorker);
    await acked;
    this.terminate();
  }

  /** Ends the worker now; exports still waiting for it count as failed. */
  terminate(): void {
    if (this.state !== "running") return;
    this.state = "stopped";
    this.worker.terminate();
    this.failPending();
  }

  private settle(id: number, ok: boolean): void {
    const done = this.pending.get(id);
    if (!done) return;
    this.pending.delete(id);
    done(ok);
  }

  private died(): void {
    if (this.state !== "running") return;
    this.state = "dead";
    this.options.warn?.("telemetry: the trace export worker stopped unexpectedly; spans are no longer exported");
    this.failPending();
  }

  private failPending(): void {
    for (const id of [...this.pending.keys()]) this.settle(id, false);
  }
}
