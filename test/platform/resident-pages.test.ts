// Releasing clean file-backed pages (src/platform/resident-pages.ts): which mappings qualify, and a real
// process that gives its code pages back and goes on working (HTTP and SQLite) afterwards.
import { expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanMappings } from "../../src/platform/resident-pages.ts";

const mapping = (head: string, fields: Record<string, number>) =>
  [head, ...Object.entries({ Size: 64, Rss: 0, Anonymous: 0, Swap: 0, Locked: 0, ...fields }).map(([k, v]) => `${k}:${" ".repeat(Math.max(1, 16 - k.length))}${v} kB`), "VmFlags: rd mr mw me"].join("\n");

test("only readable, unwritable, file-backed, resident mappings without anonymous, swapped or locked pages qualify", () => {
  const smaps = [
    mapping("00200000-00300000 r--p 00000000 fe:00 2457819                            /opt/agent", { Rss: 40 }),
    mapping("00300000-00400000 r-xp 00100000 fe:00 2457819                            /opt/agent", { Rss: 900, Private_Dirty: 900 }),
    mapping("00400000-00401000 rw-p 00200000 fe:00 2457819                            /opt/agent", { Rss: 4, Anonymous: 4 }),
    mapping("00401000-00402000 r--p 00201000 fe:00 2457819                            /opt/agent", { Rss: 4, Anonymous: 4 }),
    mapping("00500000-00600000 rw-p 00000000 00:00 0                                  [heap]", { Rss: 1000, Anonymous: 1000 }),
    mapping("7f0000000000-7f0000100000 r-xp 00000000 fe:00 99                         /usr/lib/libc.so.6", { Rss: 0 }),
    mapping("7f0000100000-7f0000200000 r--p 00000000 fe:00 100                        /usr/lib/locale/swapped", { Rss: 8, Swap: 4 }),
    mapping("7f0000200000-7f0000300000 r-xp 00000000 fe:00 101                        /usr/lib/locked.so", { Rss: 8, Locked: 8 }),
    mapping("7f0000300000-7f0000400000 ---p 00000000 fe:00 101                        /usr/lib/guard.so", { Rss: 0 }),
    mapping("7f0000400000-7f0000500000 r--s 00000000 fe:00 102                        /data/with space.db", { Rss: 12 }),
    mapping("7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0                          [vdso]", { Rss: 8 }),
  ].join("\n");
  const found = cleanMappings(smaps);
  expect(found.map((m) => [m.start.toString(16), m.end.toString(16), m.path, m.rssKb])).toEqual([
    ["200000", "300000", "/opt/agent", 40],
    // Dirty pages of a file written shortly before are the page cache's: they may go.
    ["300000", "400000", "/opt/agent", 900],
    ["7f0000400000", "7f0000500000", "/data/with space.db", 12],
  ]);
});

test.skipIf(process.platform !== "linux")("a process gives its code pages back and keeps serving HTTP and SQLite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-resident-"));
  const script = join(dir, "child.ts");
  writeFileSync(
    script,
    `import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { releaseCleanPages } from ${JSON.stringify(join(import.meta.dir, "../../src/platform/resident-pages.ts"))};
const fileKb = () => Number(/RssFile:\\s+(\\d+)/.exec(readFileSync("/proc/self/status", "utf8"))![1]);
const db = new Database(${JSON.stringify(join(dir, "t.db"))});
db.exec("PRAGMA journal_mode=WAL; create table t(a); insert into t values (1), (2)");
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(String(db.query("select sum(a) as s from t").get().s)) });
await (await fetch(server.url)).text();
const before = fileKb();
const released = await releaseCleanPages();
const after = fileKb();
const answer = await (await fetch(server.url)).text();
console.log(JSON.stringify({ before, after, released, answer }));
server.stop(true);
`,
  );
  const proc = Bun.spawn(["bun", script], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text(), await proc.exited];
  expect(err).toBe("");
  expect(code).toBe(0);
  const result = JSON.parse(out) as { before: number; after: number; released: { mappings: number; kb: number }; answer: string };
  expect(result.answer).toBe("3");
  expect(result.released.mappings).toBeGreaterThan(0);
  expect(result.released.kb).toBeGreaterThan(5000);
  // Most of the runtime's code pages were dropped (some fault back in at once: the code that measures).
  expect(result.after).toBeLessThan(result.before / 2);
});
