// Session dirs of layout 1 (the frozen fixtures) migrate to layout 2 with nothing lost, through every door
// a user goes through (store API, daemon start, `agent continue`, `agent sessions list`); newer layouts,
// store schemas and gateway databases are refused with a message saying to update; credential files
// without a version still load.
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CredentialError, loadCredential, writeFreshCredential } from "../../src/daemon/credential.ts";
import { buildHistory } from "../../src/daemon/history-items.ts";
import { createSession, initSessionDir, listSessions, openSession, STORE_FILE } from "../../src/daemon/store/index.ts";
import { openGatewayDb } from "../../src/gateway/db/open.ts";
import { summarizeStore } from "../../src/daemon/store/migrate/store-summary.ts";
import { GatewayTokenStore } from "../../src/client/gateway-token-store.ts";
import { type Harness, startHarness } from "./harness.ts";
import { FIXTURE_ID, FIXTURE_STORE_HASH, FIXTURE_SUMMARY, hashFile, hiddenEntries, sessionShape, summaryOf, v1Copy } from "./migrate-helpers.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "cli", "main.ts");
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const NEWER = /this session was written by a newer agent \(layout 3\); this binary reads up to 2; update agent/;

function agent(args: string[], cwd: string, xdg: string) {
  const p = Bun.spawnSync(["bun", MAIN, ...args], { cwd, env: { ...process.env, XDG_DATA_HOME: xdg }, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

describe("layout 1 -> 2", () => {
  test("a new session is written in layout 2", () => {
    const dataRoot = mkdtempSync(join(tmpdir(), "agent-layout-"));
    const store = createSession({ dataRoot, project: "/p" });
    store.close();
    expect(JSON.parse(readFileSync(join(store.dir, "layout.json"), "utf8"))).toEqual({ layout: 2, session_id: store.id });
    expect(statSync(join(store.dir, "layout.json")).mode & 0o777).toBe(0o600);
    expect(existsSync(join(store.dir, "store", "session.sqlite"))).toBe(true);
    expect(existsSync(join(store.dir, "session.sqlite"))).toBe(false);
  });

  test("opening a v1 session migrates it: records, ledger, images, metadata, credential and logs all kept", () => {
    const { sessions, dir } = v1Copy();
    const originalCredential = readFileSync(join(dir, "credential.json"), "utf8");
    const store = openSession(dir);
    try {
      expect(store.id).toBe(FIXTURE_ID);
      expect(store.meta()).toMatchObject({ id: FIXTURE_ID, state: "stopped", finalized: true });
      expect(store.journal.lastSeq()).toBe(FIXTURE_SUMMARY.lastSeq);
      expect([...store.journal.all()].map((r) => r.type)).toContain("tool_call_completed");
      // The ledger: both prompts' stored results are still replayable.
      const raw = new Database(join(dir, STORE_FILE), { readonly: true });
      const ops = raw.query("SELECT window_id, operation FROM operations").all() as { window_id: string; operation: string }[];
      raw.close();
      expect(ops).toHaveLength(2);
      for (const o of ops) expect(store.ledger.get(o.window_id, o.operation)?.status).toBe("completed");
      // The image travels with its record; the one without bytes is still there, flagged unavailable.
      const { items, attachments } = buildHistory(store.journal.all(), []);
      const images = items.flatMap((i) => (i.kind === "user_message" ? (i.payload.content as { type: string; artifact_id?: string; unavailable?: boolean }[]).filter((c) => c.type === "image") : []));
      expect(images.map((i) => i.unavailable)).toEqual([false, true]);
      expect(attachments.get(images[0]!.artifact_id!)?.data?.toString("base64")).toBe(PNG);
      expect(store.conversation().entries.length).toBe(FIXTURE_SUMMARY.entries);
    } finally {
      store.close();
    }
    expect(sessionShape(dir)).toBe("new");
    expect(JSON.parse(readFileSync(join(dir, "layout.json"), "utf8"))).toMatchObject({ layout: 2, session_id: FIXTURE_ID, migrated_from: 1 });
    expect(readFileSync(join(dir, "credential.json"), "utf8")).toBe(originalCredential);
    expect(readFileSync(join(dir, "daemon.log"), "utf8")).toContain("fixture log line");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "store")).mode & 0o777).toBe(0o700);
    // Not found through the old layout any more; the untouched original waits in the private backup.
    expect(existsSync(join(dir, "session.sqlite"))).toBe(false);
    expect(hiddenEntries(sessions)).toEqual([`.${FIXTURE_ID}.layout-1.backup`, `.${FIXTURE_ID}.migration.json`]);
    expect(hashFile(join(sessions, `.${FIXTURE_ID}.layout-1.backup`, "session.sqlite"))).toBe(FIXTURE_STORE_HASH);
    expect(JSON.parse(readFileSync(join(sessions, `.${FIXTURE_ID}.migration.json`), "utf8"))).toMatchObject({ from: 1, to: 2, state: "published" });
    // Opening again is an ordinary open.
    openSession(dir).close();
    expect(summaryOf(join(dir, STORE_FILE))).toEqual(FIXTURE_SUMMARY);
  });

  test("validation compares what the original had: columns a newer schema adds to the copy do not fail it", () => {
    const original = new Database(join(v1Copy().dir, "session.sqlite"), { readonly: true });
    const copy = new Database(join(v1Copy().dir, "session.sqlite"));
    copy.run("ALTER TABLE session_meta ADD COLUMN goal TEXT DEFAULT 'later'");
    copy.run("ALTER TABLE operations ADD COLUMN facet TEXT DEFAULT 'x'");
    expect(summarizeStore(copy, original)).toEqual(summarizeStore(original));
    copy.run("UPDATE session_meta SET title = 'changed'");
    expect(summarizeStore(copy, original)).not.toEqual(summarizeStore(original));
    original.close();
    copy.close();
  });

  test("listing reads v1 sessions without migrating them; backups are dropped after 30 days or with their session", () => {
    const { dataRoot, sessions, dir } = v1Copy();
    const listed = listSessions(dataRoot);
    expect(listed.map((s) => [s.meta.id, s.meta.state])).toEqual([[FIXTURE_ID, "stopped"]]);
    expect(sessionShape(dir)).toBe("old");
    expect(existsSync(join(dir, "layout.json"))).toBe(false);

    openSession(dir).close();
    const t0 = Date.now();
    expect(listSessions(dataRoot, { now: () => t0 }).map((s) => s.meta.id)).toEqual([FIXTURE_ID]);
    expect(hiddenEntries(sessions)).toHaveLength(2);
    listSessions(dataRoot, { now: () => t0 + 31 * 24 * 3600_000 });
    expect(hiddenEntries(sessions)).toEqual([]);
    expect(sessionShape(dir)).toBe("new");
  });

  test("daemon start migrates a v1 dir and serves its stopped history", async () => {
    const { dir } = v1Copy();
    h = await startHarness({ dir });
    expect(h.running.daemon.store.id).toBe(FIXTURE_ID);
    const res = await h.get("/history");
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.session_id).toBe(FIXTURE_ID);
    expect(body.items.filter((i: { kind: string }) => i.kind === "turn_completed")).toHaveLength(2);
    expect(body.items.every((i: { secret_coverage: string }) => i.secret_coverage === "captured")).toBe(true);
    await h.stop();
    h = undefined;
    expect(sessionShape(dir)).toBe("new");
  });

  test("`agent sessions list` shows a v1 session as it is; `agent continue` migrates it and resumes it", () => {
    const { xdg, dir } = v1Copy();
    const project = mkdtempSync(join(tmpdir(), "agent-migrate-proj-"));
    mkdirSync(join(project, ".git"));
    // The fixture's project dir is gone; point the copy at a real one.
    const raw = new Database(join(dir, "session.sqlite"));
    raw.run("UPDATE session_meta SET project = ?", [project]);
    raw.close();
    const listed = agent(["sessions", "list", "--json"], project, xdg);
    expect(listed.err).toBe("");
    expect(JSON.parse(listed.out)).toMatchObject({ id: FIXTURE_ID, state: "stopped", daemon_running: false });
    expect(existsSync(join(dir, "layout.json"))).toBe(false);

    const resumed = agent(["continue", FIXTURE_ID, "--detach", "--demo"], project, xdg);
    try {
      expect(resumed.err).toBe("");
      expect(resumed.code).toBe(0);
      expect(JSON.parse(readFileSync(join(dir, "layout.json"), "utf8")).layout).toBe(2);
      expect(existsSync(join(dir, "daemon.json"))).toBe(true);
      const after = JSON.parse(agent(["sessions", "list", "--json"], project, xdg).out);
      expect(after).toMatchObject({ id: FIXTURE_ID, state: "running", daemon_running: true });
    } finally {
      expect(agent(["sessions", "stop", FIXTURE_ID], project, xdg).code).toBe(0);
    }
  }, 60_000);
});

describe("newer formats are refused", () => {
  test("a session dir of a newer layout: open, create, continue and daemon start refuse it; listings leave it out", async () => {
    const { xdg, dataRoot, dir } = v1Copy();
    openSession(dir).close();
    const layout = JSON.parse(readFileSync(join(dir, "layout.json"), "utf8"));
    writeFileSync(join(dir, "layout.json"), JSON.stringify({ ...layout, layout: 3 }));
    const before = hashFile(join(dir, STORE_FILE));
    expect(() => openSession(dir)).toThrow(NEWER);
    expect(() => initSessionDir(dir, FIXTURE_ID, { project: "/p" })).toThrow(NEWER);
    expect(listSessions(dataRoot)).toEqual([]);
    const r = agent(["continue", FIXTURE_ID, "--detach", "--demo"], tmpdir(), xdg);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(NEWER);
    await expect(startHarness({ dir })).rejects.toThrow(NEWER);
    const credDir = mkdtempSync(join(tmpdir(), "agent-cred-"));
    chmodSync(credDir, 0o700);
    writeFreshCredential(join(credDir, "c.json"));
    const refused = agent(["daemon", "--session-dir", dir, "--credential-file", join(credDir, "c.json")], tmpdir(), xdg);
    expect([refused.code, refused.out]).toEqual([1, ""]);
    expect(refused.err).toMatch(NEWER);
    expect(refused.err).not.toContain("crash report");
    expect(hashFile(join(dir, STORE_FILE))).toBe(before);
  }, 30_000);

  test("a session store whose schema has migrations this binary lacks is refused", () => {
    const { dir } = v1Copy();
    openSession(dir).close();
    const raw = new Database(join(dir, STORE_FILE));
    raw.run("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('from-the-future', 99999999999999)");
    raw.close();
    expect(() => openSession(dir)).toThrow(/this session store was written by a newer agent \(schema 2\); this binary reads up to 1; update agent/);
  });

  test("a gateway database with migrations this binary lacks is refused before anything is applied", () => {
    const data = mkdtempSync(join(tmpdir(), "agent-gwdb-"));
    const first = openGatewayDb(data);
    const count = (first.sqlite.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
    first.sqlite.run("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('from-the-future', 99999999999999)");
    first.sqlite.close();
    expect(() => openGatewayDb(data)).toThrow(`the gateway database was written by a newer agent (schema ${count + 1}); this binary reads up to ${count}; update agent`);
  });
});

describe("credential and token files", () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-cred-v-"));
  chmodSync(dir, 0o700);
  const token = "dmn_0123456789abcdefghijklmnopqrstuvwxyz";
  const file = (name: string, doc: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(doc), { mode: 0o600 });
    return path;
  };

  test("a credential without a version (v1, as the fixtures have) still loads; new ones are written with version 1", () => {
    expect(loadCredential(file("plain.json", { token }))).toBe(token);
    const fresh = join(dir, "fresh.json");
    const written = writeFreshCredential(fresh);
    expect(JSON.parse(readFileSync(fresh, "utf8"))).toEqual({ version: 1, token: written });
    expect(loadCredential(fresh)).toBe(written);
  });

  test("a credential of a newer version is refused, naming the file but never the token", () => {
    const path = file("newer.json", { version: 2, token });
    let error: unknown;
    try {
      loadCredential(path);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CredentialError);
    expect((error as Error).message).toBe(`credential file ${path} was written by a newer agent (version 2); this binary reads up to 1; update agent (the file was left unchanged)`);
    expect((error as Error).message).not.toContain(token);
  });

  test("gateway token files: unversioned ones load, saves carry version 1, newer ones are refused and kept", () => {
    const env = { XDG_DATA_HOME: mkdtempSync(join(tmpdir(), "agent-gwtok-")) };
    const tokens = new GatewayTokenStore(env);
    const url = "https://gw.example:8443";
    mkdirSync(tokens.dir, { recursive: true });
    writeFileSync(tokens.pathFor(url), JSON.stringify({ access_token: "oat_old", client_id: "c1" }));
    expect(tokens.load(url)).toMatchObject({ access_token: "oat_old", client_id: "c1" });
    tokens.save(url, { access_token: "oat_new" });
    expect(JSON.parse(readFileSync(tokens.pathFor(url), "utf8"))).toEqual({ access_token: "oat_new", version: 1 });
    writeFileSync(tokens.pathFor(url), JSON.stringify({ version: 7, access_token: "oat_future" }));
    expect(() => tokens.load(url)).toThrow("was written by a newer agent (version 7); this binary reads up to 1; update agent");
    expect(readFileSync(tokens.pathFor(url), "utf8")).toContain("oat_future");
  });
});
