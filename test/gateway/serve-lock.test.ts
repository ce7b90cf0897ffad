// A second `agent gateway serve` on a SQLite data dir that one already serves is refused with a message
// naming the holder (issue 38 item 4): real processes, then in-process gateways (the lock also holds
// between two connections of one process), and a crashed holder leaves nothing that blocks a restart.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestGateway } from "./helpers.ts";
import { startGateway } from "../../src/gateway/server/serve.ts";
import { parseGatewayConfig } from "../../src/gateway/config/load.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "cli", "main.ts");
const procs: ReturnType<typeof Bun.spawn>[] = [];

afterEach(() => {
  for (const p of procs.splice(0)) p.kill(9);
});

function serve(dir: string, config: string) {
  const proc = Bun.spawn(["bun", MAIN, "gateway", "serve", "--config", config], { cwd: dir, env: { ...process.env, HOME: dir, XDG_DATA_HOME: join(dir, "xdg") }, stdout: "pipe", stderr: "pipe" });
  procs.push(proc);
  return proc;
}

async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text;
}

function configs(dir: string): [string, string] {
  const data = join(dir, "data");
  const a = join(dir, "a.yaml");
  const b = join(dir, "b.yaml");
  writeFileSync(a, `data_dir: ${data}\nlisten: {address: 127.0.0.1, port: 0}\nauth: {}\n`);
  writeFileSync(b, `data_dir: ${data}\nlisten: {address: 127.0.0.1, port: 0}\nauth: {}\n`);
  return [a, b];
}

test("a second serve on the same data dir exits 1 naming the first one's pid; the first keeps serving; after a kill -9 a new one starts", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-gw-lock-"));
  const [a, b] = configs(dir);
  const first = serve(dir, a);
  const url = /listening on (\S+)/.exec(await firstLine(first.stdout))?.[1];
  expect(url).toBeDefined();

  const second = serve(dir, b);
  expect(await second.exited).toBe(1);
  expect(await new Response(second.stderr).text()).toBe(
    `agent: cannot start the gateway: another \`agent gateway serve\` (pid ${first.pid}) already serves the data dir ${join(dir, "data")} (it holds ${join(dir, "data", "serve.lock")}): ` +
      "two servers over one SQLite database fail each other's sessions; stop that one first, give this one another data_dir, or run several replicas on PostgreSQL (database.url)\n",
  );
  expect((await fetch(`${url}/api/v1/health`)).status).toBe(200);

  // The kernel drops the lock with the process: no stale lock file to clean up by hand.
  first.kill(9);
  await first.exited;
  const third = serve(dir, b);
  expect(await firstLine(third.stdout)).toContain("listening on http://127.0.0.1:");
}, 30_000);

test("in one process too: the second start is refused, and it starts once the first stopped", async () => {
  const first = await startTestGateway();
  const yaml = `data_dir: ${first.ctx.dataDir}\nlisten: {address: 127.0.0.1, port: 0}\nauth: {}\n`;
  const start = () => startGateway({ config: parseGatewayConfig(yaml, join(first.dir, "b.yaml")), env: process.env, pam: null });
  await expect(start()).rejects.toThrow(`another \`agent gateway serve\` (pid ${process.pid}) already serves the data dir ${first.ctx.dataDir}`);
  expect((await fetch(`${first.url}/api/v1/health`)).status).toBe(200);
  await first.stop();
  const second = await start();
  expect((await fetch(`${second.url}/api/v1/health`)).status).toBe(200);
  await second.stop();
});
