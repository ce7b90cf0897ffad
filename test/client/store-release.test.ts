// SessionStore.close() lets go of the database file at once, so another process (the session's daemon,
// started right after `agent new` created the dir) can open, migrate and write it. Before, bun:sqlite kept
// the connection until drizzle's prepared statements were collected, and its deferred close (a WAL
// checkpoint) ran during the daemon's start: "database is locked".
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSession, listSessions, openSession, STORE_FILE } from "../../src/daemon/store/index.ts";
import { v1Copy } from "../daemon/migrate-helpers.ts";

const STORE = join(import.meta.dir, "../../src/daemon/store/index.ts");
const LAYOUT = join(import.meta.dir, "../../src/daemon/store/migrate/layout.ts");

// Another process first asks for the file alone (leaving WAL needs every other connection gone: with the
// test's still open SQLite answers "database is locked"), then opens the session as the daemon does
// (migrating an older layout first), writes and closes it.
const OTHER = `
  import { Database } from "bun:sqlite";
  import { existsSync } from "node:fs";
  import { join } from "node:path";
  import { openSession, STORE_FILE } from ${JSON.stringify(STORE)};
  import { LEGACY_STORE_FILE } from ${JSON.stringify(LAYOUT)};
  const dir = process.env.SESSION_DIR;
  const raw = new Database(join(dir, existsSync(join(dir, STORE_FILE)) ? STORE_FILE : LEGACY_STORE_FILE));
  const alone = raw.query("PRAGMA journal_mode = DELETE").get().journal_mode;
  raw.close(true);
  const store = openSession(dir);
  store.setTitle("written by the other process");
  store.close();
  console.log(JSON.stringify({ alone }));
`;

function fromAnotherProcess(dir: string): { alone?: string; error?: string } {
  const child = Bun.spawnSync(["bun", "-e", OTHER], { env: { ...process.env, SESSION_DIR: dir }, stdout: "pipe", stderr: "pipe" });
  if (child.exitCode !== 0) return { error: child.stderr.toString().trim().split("\n").find((l) => /error/i.test(l)) ?? child.stderr.toString() };
  return JSON.parse(child.stdout.toString());
}

describe("closing a session store", () => {
  test("a used store closed without waiting for garbage collection leaves no open connection behind", () => {
    const store = createSession({ dataRoot: mkdtempSync(join(tmpdir(), "agent-release-")), project: "/work/p", title: "first" });
    store.appendEvents([{ type: "turn_started", turn_id: "t1", model: "m", facet: "default" }]);
    expect(store.meta().title).toBe("first");
    store.close();
    // The last connection's close checkpoints the WAL and removes it: the file is let go.
    expect([existsSync(join(store.dir, `${STORE_FILE}-wal`)), existsSync(join(store.dir, `${STORE_FILE}-shm`))]).toEqual([false, false]);
    expect(fromAnotherProcess(store.dir)).toEqual({ alone: "delete" });
    const again = openSession(store.dir);
    expect([again.meta().title, again.events().length]).toEqual(["written by the other process", 1]);
    again.close();
  }, 30_000);

  test("a session dir of the old layout, listed here, is migrated and opened by another process at once", () => {
    const { dataRoot, dir } = v1Copy();
    // `agent continue` lists sessions (a read-only look at an old layout) before the daemon migrates it.
    expect(listSessions(dataRoot).map((s) => s.dir)).toEqual([dir]);
    expect(fromAnotherProcess(dir)).toEqual({ alone: "delete" });
    const again = openSession(dir);
    expect(again.meta().title).toBe("written by the other process");
    expect(again.events().length).toBeGreaterThan(0);
    again.close();
  }, 30_000);

  test("a closed store refuses further use with a clear error instead of touching the file", () => {
    const store = createSession({ dataRoot: mkdtempSync(join(tmpdir(), "agent-release-")), project: "/work/p" });
    store.close();
    store.close();
    expect(() => store.meta()).toThrow(/closed/i);
  });
});
