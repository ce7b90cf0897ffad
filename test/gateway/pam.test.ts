// Real PAM: a throwaway system user and a pam_unix service file, checked through the web login.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { pamUnavailableReason } from "../../src/gateway/auth/pam.ts";
import { startTestGateway, type TestGateway } from "./helpers.ts";
import { WebClient } from "./web-client.ts";

const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
const hasTools = Bun.which("useradd") !== null && Bun.which("chpasswd") !== null;
const reason = !isRoot ? "not running as root (creating a system user and /etc/pam.d entry needs root)" : !hasTools ? "useradd/chpasswd are not installed" : pamUnavailableReason();
if (reason) console.log(`skipping real PAM tests: ${reason}`);

const suffix = randomBytes(3).toString("hex");
const user = `agwtest${suffix}`;
const service = `agent-gateway-test-${suffix}`;
const password = `Pam-${randomBytes(6).toString("hex")}`;

describe.skipIf(Boolean(reason))("real PAM through the web login", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    const add = Bun.spawnSync(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", user]);
    if (add.exitCode !== 0) throw new Error(`useradd failed: ${add.stderr}`);
    const pw = Bun.spawnSync(["chpasswd"], { stdin: new TextEncoder().encode(`${user}:${password}\n`) });
    if (pw.exitCode !== 0) throw new Error(`chpasswd failed: ${pw.stderr}`);
    writeFileSync(`/etc/pam.d/${service}`, "auth required pam_unix.so nodelay\naccount required pam_unix.so\n");
    gw = await startTestGateway("", { pam: undefined, auth: `  pam: {service: ${service}}\n` });
    const principal = await gw.ctx.principals.create("alice");
    await gw.ctx.principals.setPam(principal.id, service, user);
  });
  afterAll(async () => {
    await gw?.stop();
    rmSync(`/etc/pam.d/${service}`, { force: true });
    Bun.spawnSync(["userdel", user]);
  });

  test("the right system password signs in (by principal name and by system username)", async () => {
    expect((await new WebClient(gw.url).login("alice", password)).status).toBe(303);
    const web = new WebClient(gw.url);
    expect((await web.login(user, password)).status).toBe(303);
    const dash = await web.dashboard();
    expect(dash.html).toContain("signs in through the system (PAM)");
    expect((await gw.ctx.audit.list({ limit: 1 }))[0]).toMatchObject({ action: "login", outcome: "success", detail: "pam" });
  });

  test("a wrong password is the ordinary 401 and counts toward the login limiter", async () => {
    const res = await new WebClient(gw.url).login("alice", "wrong-password");
    expect(res.status).toBe(401);
    expect(await res.text()).toContain("Wrong username or password.");
  });

  test("a missing /etc/pam.d service file is a 503, never a login", async () => {
    const principal = await gw.ctx.principals.create("bob");
    await gw.ctx.principals.setPam(principal.id, `${service}-missing`, "root");
    const res = await new WebClient(gw.url).login("bob", password);
    expect(res.status).toBe(503);
    expect(await res.text()).not.toContain("pam");
  });
});
