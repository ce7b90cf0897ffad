// A second `agent gateway serve` on the port a first one listens on is refused (exit 1, "the port is in
// use") instead of sharing it: Bun's production mode turns SO_REUSEPORT on, and two gateways on one port
// answered alternately with two fleet epochs. Real processes on a real port; the session daemon
// (`agent daemon --port P`) likewise.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const MAIN = join(import.meta.dir, "..", "..", "src", "cli", "main.ts");
const procs: ReturnType<typeof Bun.spawn>[] = [];

afterEach(() => {
  for (const p of procs.splice(0)) p.kill(9);
});

function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

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

test("a second gateway on a port in use exits 1 saying so; the first keeps the port", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-gw-port-"));
  const port = freePort();
  const config = join(dir, "gateway.yaml");
  writeFileSync(config, `data_dir: ${join(dir, "data")}\nlisten: {address: 127.0.0.1, port: ${port}}\nauth: {}\n`);
  const first = serve(dir, config);
  expect(await firstLine(first.stdout)).toContain(`listening on http://127.0.0.1:${port}`);

  // Its own data dir: one data dir is already refused before the port is tried (serve-lock.test.ts).
  const other = join(dir, "other.yaml");
  writeFileSync(other, `data_dir: ${join(dir, "data2")}\nlisten: {address: 127.0.0.1, port: ${port}}\nauth: {}\n`);
  const second = serve(dir, other);
  expect(await second.exited).toBe(1);
  expect(await new Response(second.stderr).text()).toBe(`agent: cannot start the gateway: cannot listen on 127.0.0.1:${port}: the port is in use (set listen.port)\n`);

  // The first still serves.
  expect((await fetch(`http://127.0.0.1:${port}/api/v1/health`)).status).toBe(200);
  expect(first.exitCode).toBeNull();
}, 30_000);

test("a second session daemon on a port in use exits 1 saying so", async () => {
  const { writeFreshCredential } = await import("../../src/daemon/credential.ts");
  const fixture = join(import.meta.dir, "..", "daemon", "fixtures", "fake-daemon.ts");
  const port = freePort();
  const daemon = (name: string) => {
    const dir = join(mkdtempSync(join(tmpdir(), "agent-dmn-port-")), name);
    const cred = `${dir}.credential.json`;
    writeFreshCredential(cred);
    const proc = Bun.spawn(["bun", fixture, dir, cred, "go", String(port)], { stdout: "pipe", stderr: "pipe" });
    procs.push(proc);
    return proc;
  };
  const first = daemon("a");
  expect(await firstLine(first.stdout)).toContain(`"port":${port}`);
  const second = daemon("b");
  expect(await second.exited).toBe(1);
  expect(await new Response(second.stderr).text()).toContain(`cannot listen on 127.0.0.1:${port}: the port is in use`);
  expect(first.exitCode).toBeNull();
}, 30_000);
