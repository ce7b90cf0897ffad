// A crash at every step of the layout 1 -> 2 migration, both as a step hook that throws and as the
// migrating process killed (SIGKILL) at the step, leaves the session fully old or fully new: a read-only
// reader sees the complete original or the complete migrated store, and the next open finishes the publish
// or restores the original (then migrates again) with nothing lost.
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadCredential, writeFreshCredential } from "../../src/daemon/credential.ts";
import { listSessions, openSession, openStoreReadOnly } from "../../src/daemon/store/index.ts";
import { MigrationBlockedError } from "../../src/daemon/store/migrate/journal-file.ts";
import { MIGRATION_STEPS, MigrationError, migrateV1ToV2, type MigrationStep } from "../../src/daemon/store/migrate/migrate-v1-v2.ts";
import { recoverMigration } from "../../src/daemon/store/migrate/recover.ts";
import { summarizeStore } from "../../src/daemon/store/migrate/store-summary.ts";
import { startHarness } from "./harness.ts";
import { FIXTURE_ID, FIXTURE_SUMMARY, hashFile, hiddenEntries, sessionShape, v1Copy } from "./migrate-helpers.ts";

const MIGRATE = join(import.meta.dir, "..", "..", "src", "daemon", "store", "migrate", "migrate-v1-v2.ts");

/** Until the backup rename the original is the session; from then on the validated new tree is. */
function expectedRecovery(step: MigrationStep): "none" | "restored" | "finished" {
  if (step === "begin") return "none";
  return MIGRATION_STEPS.indexOf(step) <= MIGRATION_STEPS.indexOf("backup") ? "restored" : "finished";
}

/** What a user can see right after the crash, then after the next start's recovery. */
function checkAfterCrash(step: MigrationStep, copy: ReturnType<typeof v1Copy>): void {
  const { dataRoot, sessions, dir } = copy;
  // Read-only (stopped history): never writes, sees one complete store.
  const view = openStoreReadOnly(dir)!;
  try {
    expect(summarizeStore(view.sqlite)).toEqual(FIXTURE_SUMMARY);
  } finally {
    view.sqlite.close();
  }
  const outcome = recoverMigration(dir);
  expect([step, outcome]).toEqual([step, expectedRecovery(step)]);
  if (outcome === "finished") {
    expect([step, sessionShape(dir)]).toEqual([step, "new"]);
    expect(hiddenEntries(sessions)).toEqual([`.${FIXTURE_ID}.layout-1.backup`, `.${FIXTURE_ID}.migration.json`]);
  } else {
    expect([step, sessionShape(dir)]).toEqual([step, "old"]);
    expect(hiddenEntries(sessions)).toEqual([]);
  }
  // The next open (which migrates again after a restore) has everything; a listing finds it once.
  openSession(dir).close();
  expect(sessionShape(dir)).toBe("new");
  expect(listSessions(dataRoot).map((s) => s.meta.id)).toEqual([FIXTURE_ID]);
}

describe("a crash at every migration step", () => {
  for (const step of MIGRATION_STEPS) {
    test(`thrown at ${step}: fully old or fully new, and the next open finishes or restores`, () => {
      const copy = v1Copy();
      expect(() =>
        migrateV1ToV2(copy.dir, {
          beforeStep: (s) => {
            if (s === step) throw new Error(`crash at ${s}`);
          },
        }),
      ).toThrow(`crash at ${step}`);
      checkAfterCrash(step, copy);
    });
  }

  for (const step of MIGRATION_STEPS) {
    test(`process killed at ${step}: fully old or fully new, and the next open finishes or restores`, () => {
      const copy = v1Copy();
      const code = `import { migrateV1ToV2 } from ${JSON.stringify(MIGRATE)};
        migrateV1ToV2(process.env.SESSION_DIR, { beforeStep: (s) => { if (s === process.env.KILL_AT) process.kill(process.pid, "SIGKILL"); } });`;
      const child = Bun.spawnSync(["bun", "-e", code], { env: { ...process.env, SESSION_DIR: copy.dir, KILL_AT: step }, stdout: "pipe", stderr: "pipe" });
      expect([step, child.signalCode, child.stderr.toString()]).toEqual([step, "SIGKILL", ""]);
      checkAfterCrash(step, copy);
    }, 30_000);
  }
});

describe("migration safety", () => {
  test("a launcher writing a fresh credential into the path mid-publish: daemon start finishes the migration and keeps it", async () => {
    const { dir } = v1Copy();
    const crashAtPublish = (step: string) => {
      if (step === "publish") throw new Error("crash");
    };
    expect(() => migrateV1ToV2(dir, { beforeStep: crashAtPublish })).toThrow("crash");
    // What `agent continue` / the gateway do before spawning the daemon.
    const token = writeFreshCredential(join(dir, "credential.json"));
    const h = await startHarness({ dir });
    try {
      expect(h.running.daemon.store.id).toBe(FIXTURE_ID);
      expect((await h.get("/history")).status).toBe(200);
    } finally {
      await h.stop();
    }
    expect(sessionShape(dir)).toBe("new");
    expect(loadCredential(join(dir, "credential.json"))).toBe(token);
  });

  test("a migration another live process is running is not touched: opening says so, then proceeds once it is gone", async () => {
    const { sessions, dir } = v1Copy();
    const other = Bun.spawn(["sleep", "30"]);
    writeFileSync(join(sessions, `.${FIXTURE_ID}.migration.json`), JSON.stringify({ version: 1, session_dir: FIXTURE_ID, from: 1, to: 2, state: "staging", pid: other.pid, started_at: new Date().toISOString() }));
    expect(() => openSession(dir)).toThrow(new MigrationBlockedError(`session ${FIXTURE_ID} is being migrated by process ${other.pid}; try again in a moment`));
    expect(sessionShape(dir)).toBe("old");
    other.kill(9);
    await other.exited;
    openSession(dir).close();
    expect(sessionShape(dir)).toBe("new");
  });

  test("a listing while another live process is between the two renames lists the session from its backup", async () => {
    const { dataRoot, sessions, dir } = v1Copy();
    const crashAtPublish = (step: string) => {
      if (step === "publish") throw new Error("crash");
    };
    expect(() => migrateV1ToV2(dir, { beforeStep: crashAtPublish })).toThrow("crash");
    // The journal now names a live process: the migration is "in progress", not to be recovered.
    const other = Bun.spawn(["sleep", "30"]);
    const journalFile = join(sessions, `.${FIXTURE_ID}.migration.json`);
    writeFileSync(journalFile, JSON.stringify({ ...JSON.parse(readFileSync(journalFile, "utf8")), pid: other.pid }));
    try {
      expect(listSessions(dataRoot).map((s) => [s.meta.id, s.meta.state])).toEqual([[FIXTURE_ID, "stopped"]]);
      expect(existsSync(dir)).toBe(false);
    } finally {
      other.kill(9);
      await other.exited;
    }
    expect(listSessions(dataRoot).map((s) => s.meta.id)).toEqual([FIXTURE_ID]);
    expect(sessionShape(dir)).toBe("new");
  });

  test("a v1 session an older agent's daemon still serves is not migrated under it; a reused pid does not block", async () => {
    const { dir } = v1Copy();
    // A live process whose command line is an agent daemon's (`... daemon --session-dir ...`).
    const daemon = Bun.spawn(["bash", "-c", "sleep 30; true", "daemon"]);
    // Until the child has exec'd, its command line is still the test runner's.
    while (!readFileSync(`/proc/${daemon.pid}/cmdline`, "utf8").split("\u0000").includes("daemon")) await Bun.sleep(5);
    writeFileSync(join(dir, "daemon.json"), JSON.stringify({ port: 1, pid: daemon.pid, epoch: "ep_x" }));
    expect(() => openSession(dir)).toThrow(`a daemon of an older agent (pid ${daemon.pid}) still serves it; stop that daemon, then resume the session to migrate it`);
    expect(sessionShape(dir)).toBe("old");
    daemon.kill(9);
    await daemon.exited;
    const unrelated = Bun.spawn(["sleep", "30"]);
    writeFileSync(join(dir, "daemon.json"), JSON.stringify({ port: 1, pid: unrelated.pid, epoch: "ep_x" }));
    try {
      openSession(dir).close();
      expect(sessionShape(dir)).toBe("new");
    } finally {
      unrelated.kill(9);
    }
  });

  test("an original restored by hand: with its backup still beside it opening says what to move; without, it migrates again", () => {
    const { sessions, dir } = v1Copy();
    openSession(dir).close();
    const backup = join(sessions, `.${FIXTURE_ID}.layout-1.backup`);
    rmSync(dir, { recursive: true });
    cpSync(backup, dir, { recursive: true });
    expect(() => openSession(dir)).toThrow(`session ${FIXTURE_ID} was migrated before and its backup is still beside it`);
    expect(sessionShape(dir)).toBe("old");
    rmSync(backup, { recursive: true });
    openSession(dir).close();
    expect(sessionShape(dir)).toBe("new");
  });

  test("an original that fails validation (a corrupt record) is left exactly as it was, with a clear error", () => {
    const { sessions, dir } = v1Copy();
    const raw = new Database(join(dir, "session.sqlite"));
    raw.run("UPDATE records SET body = 'not json' WHERE seq = 3");
    raw.close();
    const before = hashFile(join(dir, "session.sqlite"));
    expect(() => openSession(dir)).toThrow(new MigrationError(`session ${FIXTURE_ID} cannot be migrated: journal record 3 is not valid JSON; the original is unchanged`));
    expect(hashFile(join(dir, "session.sqlite"))).toBe(before);
    expect(existsSync(join(dir, "layout.json"))).toBe(false);
    expect(hiddenEntries(sessions)).toEqual([]);
  });
});
