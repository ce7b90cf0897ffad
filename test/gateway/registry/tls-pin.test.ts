// Trust on first use against real TLS gateways: the first contact asks (fingerprint and common name) and
// stores the pin per hostname; later runs and other ports of that host use it silently; a swapped
// certificate on the same hostname is refused showing both fingerprints; non-interactive runs decline;
// an expired certificate is refused without asking; plaintext goes only to loopback.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gatewayTransport, PinStore, pinnedFetch, TlsPinError, type TrustQuestion } from "../../../src/client/tls-pin.ts";
import { tempDir, type TestGateway } from "../helpers.ts";
import { selfSignedFiles, startTlsGateway } from "./helpers.ts";

const running: TestGateway[] = [];
afterEach(async () => {
  for (const gw of running.splice(0)) await gw.stop();
});
async function serve(files: { cert: string; key: string }): Promise<string> {
  const gw = await startTlsGateway(files);
  running.push(gw);
  return `https://localhost:${gw.server.port}`;
}

const freshEnv = () => ({ HOME: tempDir("gw-home-"), XDG_DATA_HOME: tempDir("gw-xdg-") });
const never = async (q: TrustQuestion): Promise<boolean> => {
  throw new Error(`unexpected trust question: ${q.kind}`);
};

async function refusal(work: Promise<unknown>): Promise<TlsPinError> {
  try {
    await work;
  } catch (error) {
    if (error instanceof TlsPinError) return error;
    throw error;
  }
  throw new Error("expected a TlsPinError");
}

describe("trust on first use", () => {
  test("first contact asks with fingerprint and common name, stores the pin per hostname (0600); later runs and other ports do not ask", async () => {
    const a = await selfSignedFiles();
    const url = await serve(a);
    const env = freshEnv();
    const asked: TrustQuestion[] = [];
    const fetcher = await gatewayTransport(url, { env, confirm: async (q) => (asked.push(q), true) });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ kind: "first_contact", host: "localhost", certificate: { fingerprint: a.material.fingerprint, commonName: "Agent Gateway for localhost" } });
    expect((await fetcher(`${url}/api/v1/health`)).status).toBe(200);

    const file = join(env.XDG_DATA_HOME, "agent", "gateway-client", "fingerprints", "localhost.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ host: "localhost", fingerprint: a.material.fingerprint, common_name: "Agent Gateway for localhost" });

    const again = await gatewayTransport(url, { env, confirm: never });
    expect((await again(`${url}/api/v1/version`)).status).toBe(200);
    const otherPort = await serve(a);
    expect(otherPort).not.toBe(url);
    expect((await (await gatewayTransport(otherPort, { env })) (`${otherPort}/api/v1/version`)).status).toBe(200);
  });

  test("a swapped certificate on the same hostname is refused with both fingerprints; the pin is kept", async () => {
    const a = await selfSignedFiles();
    const b = await selfSignedFiles();
    const env = freshEnv();
    await gatewayTransport(await serve(a), { env, confirm: async () => true });
    const pinFile = new PinStore(env).pathFor("localhost");
    const pinned = readFileSync(pinFile, "utf8");

    const swapped = await serve(b);
    const nonInteractive = await refusal(gatewayTransport(swapped, { env }));
    expect(nonInteractive.code).toBe("certificate_changed");
    expect(nonInteractive.message).toContain(a.material.fingerprint);
    expect(nonInteractive.message).toContain(b.material.fingerprint);

    const asked: TrustQuestion[] = [];
    const declined = await refusal(gatewayTransport(swapped, { env, confirm: async (q) => (asked.push(q), false) }));
    expect(declined.code).toBe("certificate_changed");
    expect(asked[0]).toMatchObject({ kind: "changed", pinned: { fingerprint: a.material.fingerprint }, certificate: { fingerprint: b.material.fingerprint } });
    expect(readFileSync(pinFile, "utf8")).toBe(pinned);

    // The pinned fetch itself checks the certificate (not only the probe before it).
    const pin = new PinStore(env).load("localhost")!;
    await expect(pinnedFetch(pin)(`${swapped}/api/v1/version`)).rejects.toThrow();
  });

  test("non-interactive first contact declines and stores nothing", async () => {
    const a = await selfSignedFiles();
    const env = freshEnv();
    const error = await refusal(gatewayTransport(await serve(a), { env }));
    expect(error.code).toBe("untrusted_certificate");
    expect(error.message).toContain(a.material.fingerprint);
    expect(existsSync(new PinStore(env).pathFor("localhost"))).toBe(false);
  });

  test("an expired certificate is refused without asking, also when it is pinned", async () => {
    const old = await selfSignedFiles(new Date(Date.now() - 900 * 86_400_000));
    const url = await serve(old);
    const env = freshEnv();
    const error = await refusal(gatewayTransport(url, { env, confirm: never }));
    expect([error.code, error.message]).toEqual(["certificate_invalid", expect.stringContaining("expired")]);
    const pin = new PinStore(env).save("localhost", { fingerprint: old.material.fingerprint, commonName: old.material.commonName, pem: old.material.cert, validTo: "" }, Date.now());
    await expect(pinnedFetch(pin)(`${url}/api/v1/version`)).rejects.toThrow(/expired/);
  });

  test("plaintext only to loopback", async () => {
    const env = freshEnv();
    expect((await refusal(gatewayTransport("http://gateway.example.com:19870", { env }))).code).toBe("plaintext_refused");
    expect((await refusal(gatewayTransport("http://10.0.0.1", { env }))).code).toBe("plaintext_refused");
    for (const url of ["http://127.0.0.1:1", "http://localhost:1", "http://[::1]:1"]) expect(typeof (await gatewayTransport(url, { env }))).toBe("function");
  });
});
