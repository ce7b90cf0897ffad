// daemon.tls.trust_store: a local HTTPS fake signed by a throwaway CA is reachable only when that CA
// is in the trust store; the default roots stay enabled; bad bundles are hard errors.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { rootCertificates } from "node:tls";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ResponseAssembler } from "../../src/providers/assemble.ts";
import { streamOnce } from "../../src/providers/client.ts";
import { ProviderError } from "../../src/providers/errors.ts";
import { resolveProvider } from "../../src/providers/resolve.ts";
import { TrustStoreError, fetchTlsOptions, loadTrustStore } from "../../src/providers/tls.ts";
import { FakeClock } from "../fakes/fake-clock.ts";
import { type ProviderFake, startProviderFake } from "../fakes/provider-fake.ts";
import { createTestPki, type TestPki } from "../fakes/test-ca.ts";

let pki: TestPki;
let fake: ProviderFake;
const dir = mkdtempSync(join(tmpdir(), "trust-"));

beforeAll(async () => {
  pki = await createTestPki();
  fake = startProviderFake("b_chat_completions", [{ kind: "turn", turn: { text: "over TLS" } }, { kind: "turn", turn: { text: "again" } }], {
    tls: { cert: pki.serverCertPem, key: pki.serverKeyPem },
  });
  writeFileSync(join(dir, "extra-ca.pem"), pki.caPem);
});
afterAll(async () => fake.stop());

const request = {
  model: "m",
  system: null,
  messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }],
  tools: [],
  max_output_tokens: null,
  stop_sequences: [],
  reasoning: null,
  request_options: {},
};

async function call(trustStore: ReturnType<typeof loadTrustStore> | null) {
  const provider = resolveProvider("tls", { kind: { type: "custom_b_compatible" }, url: fake.base, auth: { type: "no_auth" } });
  const a = new ResponseAssembler();
  for await (const e of streamOnce(provider, request, { clock: new FakeClock(), trustStore })) a.push(e);
  return a.snapshot();
}

describe("trust store", () => {
  test("without the test CA the HTTPS fake is rejected as a network error", async () => {
    expect(fake.url.startsWith("https://")).toBe(true);
    const e = await call(null).catch((x) => x);
    expect(e).toBeInstanceOf(ProviderError);
    expect(e.kind).toBe("network");
    expect(fake.requests.length).toBe(0);
  });

  test("with the CA in daemon.tls.trust_store (relative to the daemon cwd) the call succeeds", async () => {
    const store = loadTrustStore("extra-ca.pem", dir);
    expect(store.certificates).toEqual([pki.caPem.trim()]);
    const r = await call(store);
    expect(r.parts).toEqual([{ type: "text", text: "over TLS" }]);
  });

  test("default roots stay enabled alongside the extra CA", () => {
    const opts = fetchTlsOptions(loadTrustStore(join(dir, "extra-ca.pem"), "/"))!;
    expect(opts.ca.length).toBe(rootCertificates.length + 1);
    expect(opts.ca.at(-1)).toBe(pki.caPem.trim());
  });

  test("unreadable, empty or corrupt bundles are hard errors naming the file", () => {
    expect(() => loadTrustStore("missing.pem", dir)).toThrow(TrustStoreError);
    expect(() => loadTrustStore("missing.pem", dir)).toThrow(/cannot read trust store .*missing\.pem/);
    writeFileSync(join(dir, "empty.pem"), "nothing here\n");
    expect(() => loadTrustStore("empty.pem", dir)).toThrow(/no PEM certificate/);
    writeFileSync(join(dir, "bad.pem"), "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
    expect(() => loadTrustStore("bad.pem", dir)).toThrow(/certificate 1 of 1 cannot be parsed/);
  });
});
