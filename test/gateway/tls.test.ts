import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect } from "node:tls";
import { parseGatewayConfig } from "../../src/gateway/config/load.ts";
import { resolveTls, SELF_SIGNED_CERT, SELF_SIGNED_KEY, TlsError } from "../../src/gateway/net/tls.ts";
import { tempDir } from "./helpers.ts";

const cfg = (yaml: string, dir: string) => parseGatewayConfig(yaml, join(dir, "gateway-config.yaml"), "buildhost");

function opensslFingerprint(path: string): string {
  const out = Bun.spawnSync(["openssl", "x509", "-in", path, "-noout", "-fingerprint", "-sha256"]).stdout.toString();
  return out.trim().split("=")[1]!;
}

function peerFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.on("error", reject);
  });
}

describe("TLS", () => {
  test("loopback without TLS files runs plaintext and writes no key", async () => {
    const dir = tempDir();
    expect(await resolveTls(cfg("auth: {}\n", dir), join(dir, "data"), new Date())).toBeNull();
    expect(existsSync(join(dir, "data", SELF_SIGNED_KEY))).toBe(false);
  });

  test("a non-loopback listen address generates a self-signed P-256 pair, reused across restarts", async () => {
    const dir = tempDir();
    const data = join(dir, "data");
    const config = cfg("listen: {address: 0.0.0.0}\nauth: {}\n", dir);
    const first = (await resolveTls(config, data, new Date(), "buildhost"))!;
    expect(first.source).toBe("self-signed-generated");
    expect(first.commonName).toBe("Agent Gateway for buildhost");
    const certPath = join(data, SELF_SIGNED_CERT);
    expect(statSync(join(data, SELF_SIGNED_KEY)).mode & 0o777).toBe(0o600);
    expect(statSync(certPath).mode & 0o777).toBe(0o644);
    expect(first.fingerprint).toBe(opensslFingerprint(certPath));
    const text = Bun.spawnSync(["openssl", "x509", "-in", certPath, "-noout", "-text"]).stdout.toString();
    expect(text).toContain("prime256v1");
    expect(text).toMatch(/DNS:buildhost, DNS:localhost, IP Address:127\.0\.0\.1, IP Address:0:0:0:0:0:0:0:1/);
    const again = (await resolveTls(config, data, new Date()))!;
    expect(again.source).toBe("self-signed-existing");
    expect(again.fingerprint).toBe(first.fingerprint);
    // Once a pair exists it is used on loopback too.
    expect((await resolveTls(cfg("auth: {}\n", dir), data, new Date()))!.fingerprint).toBe(first.fingerprint);
  });

  test("configured files are loaded; bad files fail startup with the path", async () => {
    const dir = tempDir();
    const gen = (await resolveTls(cfg("listen: {address: 0.0.0.0}\nauth: {}\n", dir), join(dir, "gen"), new Date()))!;
    writeFileSync(join(dir, "c.pem"), gen.cert);
    writeFileSync(join(dir, "k.pem"), gen.key);
    const loaded = (await resolveTls(cfg("tls: {cert_file: c.pem, key_file: k.pem}\nauth: {}\n", dir), join(dir, "data"), new Date()))!;
    expect(loaded.source).toBe("configured");
    expect(loaded.fingerprint).toBe(gen.fingerprint);
    writeFileSync(join(dir, "bad.pem"), "hello");
    expect(resolveTls(cfg("tls: {cert_file: bad.pem, key_file: k.pem}\nauth: {}\n", dir), join(dir, "data"), new Date())).rejects.toThrow(TlsError);
    expect(resolveTls(cfg("tls: {cert_file: missing.pem, key_file: k.pem}\nauth: {}\n", dir), join(dir, "data"), new Date())).rejects.toThrow(`cannot read tls.cert_file ${join(dir, "missing.pem")}: ENOENT`);
  });

  test("the server speaks TLS with the generated certificate and keeps its fingerprint across restarts", async () => {
    const dir = tempDir();
    const data = join(dir, "data");
    await resolveTls(cfg("listen: {address: 0.0.0.0}\nauth: {}\n", dir), data, new Date());
    const fp = opensslFingerprint(join(data, SELF_SIGNED_CERT));
    for (let i = 0; i < 2; i++) {
      const served = await startTestGatewayWithData(data);
      expect(served.url).toStartWith("https://127.0.0.1:");
      expect(served.tls!.fingerprint).toBe(fp);
      expect(await peerFingerprint(served.server.port!)).toBe(fp);
      const res = await fetch(`${served.url}/api/v1/health`, { tls: { ca: readFileSync(join(data, SELF_SIGNED_CERT), "utf8") } });
      expect(res.status).toBe(200);
      expect(res.headers.get("strict-transport-security")).toBe("max-age=31536000");
      await served.stop();
    }
  });
});

async function startTestGatewayWithData(data: string) {
  const { startGateway } = await import("../../src/gateway/server/serve.ts");
  const dir = tempDir();
  const yaml = `data_dir: ${data}\nlisten: {address: 127.0.0.1, port: 0}\nauth: {}\n`;
  return startGateway({ config: parseGatewayConfig(yaml, join(dir, "c.yaml")), env: process.env, pam: null });
}
