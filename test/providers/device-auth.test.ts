import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DeviceAuthError } from "../../src/providers/device-auth/device-flow.ts";
import type { DeviceLoginEndpoints } from "../../src/providers/device-auth/endpoints.ts";
import { runDeviceLogin, DeviceLoginConfigError } from "../../src/providers/device-auth/login.ts";
import { DeviceProfileTokens, loadProfile, profilePath } from "../../src/providers/device-auth/profiles.ts";
import { ProviderError } from "../../src/providers/errors.ts";
import { InstantClock } from "../fakes/fake-clock.ts";
import { type DeviceAuthFake, startDeviceAuthFake } from "../fakes/device-auth-server.ts";

let server: DeviceAuthFake | null = null;
afterEach(async () => server?.stop());

const endpointsOf = (s: DeviceAuthFake) => async (): Promise<DeviceLoginEndpoints> => ({
  issuer: null,
  device_authorization_endpoint: `${s.url}/device/code`,
  token_endpoint: `${s.url}/token`,
  client_id: "agent-cli",
  scope: "model.request offline_access",
});

async function login(s: DeviceAuthFake, clock: InstantClock, dataRoot: string) {
  const shown: string[] = [];
  const result = await runDeviceLogin({
    provider: "coding-plan",
    auth: { type: "device_a", profile: "work" },
    endpoints: endpointsOf(s),
    dataRoot,
    deps: { clock },
    show: (g) => shown.push(`${g.user_code} at ${g.verification_uri}`),
  });
  return { result, shown };
}

describe("device login (RFC 8628)", () => {
  test("polls through authorization_pending and slow_down (+5 s for all later polls), stores a 0600 profile", async () => {
    server = startDeviceAuthFake({ polls: ["authorization_pending", "slow_down", "authorization_pending", "ok"], interval: 5 });
    const clock = new InstantClock();
    const dataRoot = mkdtempSync(join(tmpdir(), "data-"));
    const { result, shown } = await login(server, clock, dataRoot);
    expect(shown).toEqual([`WDJB-MJHT at ${server.url}/device`]);
    expect(clock.sleeps).toEqual([5000, 5000, 10000, 10000]);
    expect(result.path).toBe(profilePath(dataRoot, "work"));
    expect(statSync(result.path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataRoot, "auth", "providers")).mode & 0o777).toBe(0o700);
    expect(loadProfile(dataRoot, "work")).toMatchObject({ kind: "device_a", provider: "coding-plan", token_endpoint: `${server.url}/token`, client_id: "agent-cli", tokens: { access_token: expect.stringMatching(/^at_1_/), token_type: "bearer" } });
    const first = server.forms[0]!;
    expect(first.contentType).toBe("application/x-www-form-urlencoded");
    expect(first.form).toEqual({ client_id: "agent-cli", scope: "model.request offline_access" });
    expect(server.forms[1]!.form.grant_type).toBe("urn:ietf:params:oauth:grant-type:device_code");
  });

  test("a server that sends no interval is polled every 5 s", async () => {
    server = startDeviceAuthFake({ polls: ["authorization_pending", "ok"], interval: null });
    const clock = new InstantClock();
    await login(server, clock, mkdtempSync(join(tmpdir(), "data-")));
    expect(clock.sleeps).toEqual([5000, 5000]);
  });

  test("access_denied and expired codes are typed errors; nothing is stored", async () => {
    server = startDeviceAuthFake({ polls: ["access_denied"] });
    const dataRoot = mkdtempSync(join(tmpdir(), "data-"));
    const e = await login(server, new InstantClock(), dataRoot).catch((x) => x);
    expect(e).toBeInstanceOf(DeviceAuthError);
    expect(e.code).toBe("access_denied");
    expect(loadProfile(dataRoot, "work")).toBeNull();
    await server.stop();
    server = startDeviceAuthFake({ polls: Array(10).fill("authorization_pending"), expiresIn: 12, interval: 5 });
    const e2 = await login(server, new InstantClock(), dataRoot).catch((x) => x);
    expect(e2.code).toBe("expired_token");
  });

  test("a provider without device auth is refused with a clear message", async () => {
    server = startDeviceAuthFake({ polls: [] });
    const e = await runDeviceLogin({ provider: "p", auth: { type: "static_key", key: "k" }, endpoints: endpointsOf(server), dataRoot: "/nonexistent", deps: { clock: new InstantClock() }, show: () => {} }).catch((x) => x);
    expect(e).toBeInstanceOf(DeviceLoginConfigError);
    expect(e.message).toContain("expected device_a or device_b");
  });
});

describe("device profile tokens", () => {
  test("returns the stored token, refreshes (rotating) before expiry, and persists the refresh", async () => {
    server = startDeviceAuthFake({ polls: ["ok"] });
    const clock = new InstantClock();
    const dataRoot = mkdtempSync(join(tmpdir(), "data-"));
    await login(server, clock, dataRoot);
    const source = new DeviceProfileTokens(dataRoot, { clock });
    expect(await source.accessToken("device_a", "work")).toMatch(/^at_1_/);
    await clock.sleep(3600_000 - 60_000); // within the refresh margin
    expect(await source.accessToken("device_a", "work")).toMatch(/^at_2_/);
    expect(JSON.parse(readFileSync(profilePath(dataRoot, "work"), "utf8")).tokens.refresh_token).toMatch(/^rt_2_/);
    expect(server.forms.at(-1)!.form.grant_type).toBe("refresh_token");
  });

  test("concurrent calls share one refresh (a rotated refresh token must not be spent twice)", async () => {
    server = startDeviceAuthFake({ polls: ["ok"] });
    const clock = new InstantClock();
    const dataRoot = mkdtempSync(join(tmpdir(), "data-"));
    await login(server, clock, dataRoot);
    const source = new DeviceProfileTokens(dataRoot, { clock });
    await clock.sleep(3600_000);
    const tokens = await Promise.all([1, 2, 3].map(() => source.accessToken("device_a", "work")));
    expect(tokens.every((t) => /^at_2_/.test(t))).toBe(true);
    expect(server.forms.filter((f) => f.form.grant_type === "refresh_token")).toHaveLength(1);
  });

  test("a refresh refused because another daemon rotated the token first uses that daemon's saved tokens", async () => {
    server = startDeviceAuthFake({ polls: ["ok"] });
    const s = server;
    const clock = new InstantClock();
    const dataRoot = mkdtempSync(join(tmpdir(), "data-"));
    await login(s, clock, dataRoot);
    await clock.sleep(3600_000);
    const first = new DeviceProfileTokens(dataRoot, { clock });
    // The second daemon read the profile already; the first refreshes just before its request arrives.
    const second = new DeviceProfileTokens(dataRoot, {
      clock,
      fetch: async (input: string, init: RequestInit) => {
        await first.accessToken("device_a", "work");
        return fetch(input, init as RequestInit);
      },
    });
    expect(await second.accessToken("device_a", "work")).toMatch(/^at_2_/);
    const refreshes = s.forms.filter((f) => f.form.grant_type === "refresh_token");
    expect(refreshes.map((f) => f.form.refresh_token?.slice(0, 5))).toEqual(["rt_1_", "rt_1_"]); // the second was refused
    expect(loadProfile(dataRoot, "work")!.tokens.refresh_token).toMatch(/^rt_2_/);
  });

  test("missing profile, wrong kind and a revoked refresh are auth errors that say how to log in, without tokens", async () => {
    server = startDeviceAuthFake({ polls: ["ok"], refreshError: "invalid_grant" });
    const clock = new InstantClock();
    const dataRoot = mkdtempSync(join(tmpdir(), "data-"));
    const source = new DeviceProfileTokens(dataRoot, { clock });
    const missing = await source.accessToken("device_a", "work").catch((x) => x);
    expect(missing).toBeInstanceOf(ProviderError);
    expect(missing.message).toContain("agent auth provider login");
    await login(server, clock, dataRoot);
    expect((await source.accessToken("device_b", "work").catch((x) => x)).code).toBe("auth_profile_kind");
    await clock.sleep(3600_000);
    const revoked = await source.accessToken("device_a", "work").catch((x) => x);
    expect(revoked).toMatchObject({ kind: "auth", code: "refresh_invalid_grant" });
    expect(revoked.message).not.toContain("rt_1_");
  });
});
