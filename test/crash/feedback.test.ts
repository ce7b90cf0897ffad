// Crash reports through the daemon's feedback artifacts: the newest reports are listed in the catalog
// and read back by version token, scrubbed of the session's secrets.
import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startDaemon } from "../../src/daemon/serve.ts";
import { rootCommand } from "../../src/cli/commands.ts";
import { buildCrashReport } from "../../src/platform/crash/report.ts";
import { newCrashId, writeCrashReport } from "../../src/platform/crash/store.ts";
import { FakeEngine } from "../daemon/fake-engine.ts";

const TOKEN = "dmn_crash-feedback-token-0123456789abcdefghij";

test("the daemon's feedback catalog offers the newest crash reports, secrets scrubbed", async () => {
  const base = mkdtempSync(join(tmpdir(), "agent-crash-fb-"));
  const crashDir = join(base, "crash-reports");
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) {
    const now = new Date(Date.UTC(2026, 10, 21, 12, 0, i));
    const report = buildCrashReport({ error: new Error(`boom ${i} session-secret-word`), kind: "uncaught_exception", argv: ["daemon"], commands: rootCommand, env: {}, now, id: newCrashId(now) });
    writeCrashReport(crashDir, report);
    ids.push(report.id);
  }
  const running = await startDaemon({
    sessionDir: join(base, "session"),
    project: base,
    credential: TOKEN,
    limits: { heartbeatMs: 0 },
    crashReportDir: crashDir,
    engineFactory: async ({ sessionId }) => ({ engine: new FakeEngine(sessionId, {}), secrets: ["session-secret-word"] }),
  });
  try {
    const auth = { Authorization: `Bearer ${TOKEN}` };
    const catalog = (await (await fetch(`${running.url}/feedback/artifacts`, { headers: auth })).json()) as { artifacts: { id: string; version: string; media_type: string }[] };
    const crashes = catalog.artifacts.filter((a) => a.id.startsWith("crash-"));
    // The five newest, newest first.
    expect(crashes.map((a) => a.id)).toEqual(ids.slice(2).reverse());
    const newest = crashes[0]!;
    expect(newest.media_type).toBe("application/json");
    const res = await fetch(`${running.url}/feedback/artifacts/${newest.id}?version=${encodeURIComponent(newest.version)}&mode=full`, { headers: auth });
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(JSON.parse(body).error.message).toBe("boom 6 [redacted]");
    expect(body).not.toContain("session-secret-word");
  } finally {
    await running.stop();
  }
});
