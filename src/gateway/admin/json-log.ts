// The log of a long-running gateway process (`agent gateway serve`, `agent gateway host`) on stderr: JSON,
// one object a line, {"time","level","event"?,"msg"?,...fields}, scrubbed of anything that looks like a secret.
import type { Io } from "../../util/cli-command.ts";
import { redactText } from "../../util/redact.ts";
import type { Logger } from "../context.ts";

export function jsonLineLogger(io: Pick<Io, "err">): Logger {
  const line = (level: string, fields: Record<string, unknown>) => io.err(`${redactText(JSON.stringify({ time: new Date().toISOString(), level, ...fields }))}\n`);
  return {
    info: (m) => line("info", { msg: m }),
    warn: (m) => line("warn", { msg: m }),
    error: (m) => line("error", { msg: m }),
    event: (level, event, fields) => line(level, { event, ...fields }),
  };
}
