// The compiled binary (`bun run test` builds it first): embedded migrations, TLS, admin CLI, SIGTERM.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseGatewayConfig } from "../../src/gateway/config/load.ts";
import { resolveTls, SELF_SIGNED_CERT } from "../../src/gateway/net/tls.ts";
import { tempDir } from "./helpers.ts";

const BINARY = resolve(import.meta.dir, "../../dist/agent");
const reason = existsSync(BINARY) ? undefined : "dist/agent is missing (run `bun run build`)";
if (reason) console.log(`skipping binary tests: ${reason}`);

async function serve(binary: string, config: string) {
  const proc = Bun.spawn([binary, "gateway", "serve", "--config", config], { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" } });
  const reader = proc.stdout.getReader();
  let out = "";
  while (!/database: .*\n/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`serve exited early: ${out} ${await new Response(proc.stderr).text()}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { proc, out, url: /listening on (\S+)/.exec(out)![1]! };
}

describe.skipIf(Boolean(reason))("dist/agent gateway", () => {
  test("serves TLS with the stored pair, applies embedded migrations once, and stops on SIGTERM", async () => {
    const dir = tempDir("gw-bin-");
    const data = join(dir, "data");
    await resolveTls(parseGatewayConfig("listen: {address: 0.0.0.0}\nauth: {}\n", join(dir, "x.yaml")), data, new Date());
    const ca = readFileSync(join(data, SELF_SIGNED_CERT), "utf8");
    const fp = Bun.spawnSync(["openssl", "x509", "-in", join(data, SELF_SIGNED_CERT), "-noout", "-fingerprint", "-sha256"]).stdout.toString().trim().split("=")[1]!;
    const config = join(dir, "gateway-config.yaml");
    writeFileSync(config, `display_name: Binary GW\ndata_dir: ${data}\nlisten: {address: 127.0.0.1, port: 0}\nauth: {}\n`);

    const run = (args: string[], stdin?: string) => Bun.spawnSync([BINARY, "gateway", ...args, "--config", config], { stdin: stdin ? new TextEncoder().encode(stdin) : undefined });
    expect(run(["principal", "create", "ada"]).exitCode).toBe(0);
    const created = run(["token", "create", "ada", "--label", "e2e"]);
    const token = created.stdout.toString().trim();
    expect(token).toMatch(/^pat_/);

    for (const migrated of [false, false]) {
      const { proc, out, url } = await serve(BINARY, config);
      expect(out).toContain(`SHA-256 fingerprint: ${fp}`);
      expect(url).toStartWith("https://127.0.0.1:");
      const health = await fetch(`${url}/api/v1/health`, { tls: { ca }, headers: { Authorization: `Bearer ${token}` } });
      expect(await health.json()).toMatchObject({ status: "ok", name: "Binary GW", migrated_at_startup: migrated, authenticated: { username: "ada" } });
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
      expect(await new Response(proc.stderr).text()).toContain("gateway stopped");
    }
  });

  test("a fresh data dir is migrated at startup", async () => {
    const dir = tempDir("gw-bin-");
    const config = join(dir, "gateway-config.yaml");
    writeFileSync(config, `data_dir: ${join(dir, "data")}\nlisten: {address: 127.0.0.1, port: 0}\nauth: {}\n`);
    const { proc, out, url } = await serve(BINARY, config);
    expect(out).toContain("(migrated at startup)");
    expect(url).toStartWith("http://127.0.0.1:");
    expect(((await (await fetch(`${url}/api/v1/health`)).json()) as { migrated_at_startup: boolean }).migrated_at_startup).toBe(true);
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  });

  test("unreadable TLS files refuse startup and name the path", () => {
    const dir = tempDir("gw-bin-");
    const config = join(dir, "gateway-config.yaml");
    writeFileSync(config, `data_dir: ${join(dir, "data")}\nlisten: {address: 127.0.0.1, port: 0}\ntls: {cert_file: nope.pem, key_file: nope.key}\nauth: {}\n`);
    const r = Bun.spawnSync([BINARY, "gateway", "serve", "--config", config]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.toString()).toBe(`agent: cannot read tls.cert_file ${join(dir, "nope.pem")}: ENOENT\n`);
  });
});
