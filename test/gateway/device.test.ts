import { afterEach, describe, expect, test } from "bun:test";
import { normalizeUserCode } from "../../src/gateway/web/device-routes.ts";
import { addUser, startTestGateway, type TestGateway, sqlAll, sqlGet } from "./helpers.ts";
import { WebClient } from "./web-client.ts";

let gw: TestGateway;
afterEach(() => gw?.stop());

async function seedDeviceRequest(userCode: string, scopes = ["machine", "project"], ttlSecs = 900): Promise<void> {
  const now = gw.clock.now();
  await sqlAll(gw.ctx.db, "INSERT INTO oauth_clients (id, name, client_type, grant_types, scopes, created_at) VALUES ('cli_dev', 'agent connect on laptop', 'public', '[]', '[\"machine\",\"project\"]', ?) ON CONFLICT DO NOTHING", [now]);
  await sqlAll(gw.ctx.db, "INSERT INTO oauth_device_codes (device_code_hash, user_code, client_id, scopes, status, interval_secs, created_at, expires_at) VALUES (?, ?, 'cli_dev', ?, 'pending', 5, ?, ?)", [`h-${userCode}`, userCode, JSON.stringify(scopes), now, now + ttlSecs * 1000]);
}

const row = async (userCode: string) => (await sqlGet(gw.ctx.db, "SELECT status, principal_id, scopes FROM oauth_device_codes WHERE user_code = ?", [userCode])) as { status: string; principal_id: string | null; scopes: string };

describe("/device", () => {
  test("user codes are normalized: any case, with or without the dash", () => {
    expect(normalizeUserCode("wdjb-mjht")).toBe("WDJB-MJHT");
    expect(normalizeUserCode(" WDJBMJHT ")).toBe("WDJB-MJHT");
  });

  test("signing in from /device returns there with the code; approving with a narrowed scope records it", async () => {
    gw = await startTestGateway();
    const ada = await addUser(gw, "ada", "correct horse battery");
    await seedDeviceRequest("WDJB-MJHT");
    const web = new WebClient(gw.url);
    const first = await web.get("/device?user_code=wdjbmjht");
    expect(first.headers.get("location")).toBe("/login?next=%2Fdevice%3Fuser_code%3DWDJB-MJHT");
    const loginPage = await (await web.get("/login?next=%2Fdevice%3Fuser_code%3DWDJB-MJHT")).text();
    const signedIn = await web.post("/login", { csrf: WebClient.csrf(loginPage), username: "ada", password: "correct horse battery", next: "/device?user_code=WDJB-MJHT" });
    expect(signedIn.headers.get("location")).toBe("/device?user_code=WDJB-MJHT");
    const confirm = await web.get("/device?user_code=WDJB-MJHT");
    const html = await confirm.text();
    expect(html).toContain("agent connect on laptop");
    expect(confirm.headers.get("x-frame-options")).toBe("DENY");
    const done = await web.post("/device/approve", { csrf: WebClient.csrf(html), user_code: "WDJB-MJHT", scope_project: "1" });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/device");
    expect(await row("WDJB-MJHT")).toEqual({ status: "approved", principal_id: ada, scopes: '["project"]' });
    expect(await (await web.get("/device")).text()).toContain("Approved: agent connect on laptop can now finish signing in");
    // Already decided: a second approval is refused.
    await web.post("/device/approve", { csrf: WebClient.csrf(html), user_code: "WDJB-MJHT", scope_machine: "1" });
    expect(await (await web.get("/device")).text()).toContain("That code is not valid, has expired, or was already used.");
    expect((await row("WDJB-MJHT")).scopes).toBe('["project"]');
  });

  test("deny; expired codes are refused; approving nothing is refused", async () => {
    gw = await startTestGateway();
    await addUser(gw, "ada", "correct horse battery");
    await seedDeviceRequest("AAAA-BBBB");
    await seedDeviceRequest("CCCC-DDDD", ["machine"], 60);
    await seedDeviceRequest("EEEE-FFFF");
    const web = new WebClient(gw.url);
    await web.login("ada", "correct horse battery");
    const csrf = (await web.dashboard()).csrf;
    await web.post("/device/deny", { csrf, user_code: "AAAA-BBBB" });
    expect((await row("AAAA-BBBB")).status).toBe("denied");
    await web.post("/device/approve", { csrf, user_code: "EEEE-FFFF" });
    expect(await (await web.get("/device")).text()).toContain("Choose at least one scope");
    expect((await row("EEEE-FFFF")).status).toBe("pending");
    gw.clock.advance(61_000);
    const expired = await web.get("/device?user_code=CCCC-DDDD");
    expect(expired.status).toBe(404);
    await web.post("/device/approve", { csrf, user_code: "CCCC-DDDD", scope_machine: "1" });
    expect((await row("CCCC-DDDD")).status).toBe("pending");
  });

  test("guessing codes hits the device limiter (10 failures, then 429 with Retry-After)", async () => {
    gw = await startTestGateway();
    await addUser(gw, "ada", "correct horse battery");
    await seedDeviceRequest("REAL-CODE");
    const web = new WebClient(gw.url);
    await web.login("ada", "correct horse battery");
    for (let i = 0; i < 10; i++) expect((await web.get(`/device?user_code=GUES-S00${i}`)).status).toBe(404);
    const locked = await web.get("/device?user_code=REAL-CODE");
    expect(locked.status).toBe(429);
    expect(locked.headers.get("retry-after")).toBe("60");
    gw.clock.advance(60_000);
    expect((await web.get("/device?user_code=REAL-CODE")).status).toBe(200);
  });

  test("no open redirect after sign-in", async () => {
    gw = await startTestGateway();
    await addUser(gw, "ada", "correct horse battery");
    for (const next of ["https://evil.example/", "//evil.example", "/device/../../x", "/device?user_code=X&next=//evil"]) {
      const web = new WebClient(gw.url);
      const page = await (await web.get(`/login?next=${encodeURIComponent(next)}`)).text();
      expect(page).not.toContain("evil");
      const res = await web.post("/login", { csrf: WebClient.csrf(page), username: "ada", password: "correct horse battery", next });
      expect(res.headers.get("location")).toBe("/");
    }
  });
});
