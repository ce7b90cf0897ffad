// Stand-in export workers for worker-exporter tests: with service name "silent" it never answers;
// otherwise its first export throws (an uncaught error ends a Bun worker), quoting a header value as a
// careless error could.
import type { ToWorker } from "../../src/telemetry/export-wire.ts";

declare const self: Worker;

let init: Extract<ToWorker, { type: "init" }>;
self.onmessage = (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  if (message.type === "init") init = message;
  else if (message.type === "export" && init.settings.serviceName !== "silent") throw new Error(`cannot send with ${Object.values(init.settings.headers).join(",")}`);
};
