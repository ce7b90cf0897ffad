// `agent connect` sign-in of the compiled binary in a real terminal (a PTY feeding @xterm/headless), against
// a real gateway on 127.0.0.1: the device flow (the terminal shows the verification URL and user code, a
// person approves it on the gateway's /device page, the picker appears), a PAM account (a throwaway system
// user and a pam_unix service; needs root), and the same prompt path with a gateway password, where a
// wrong password is asked again.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pamUnavailableReason } from "../../src/gateway/auth/pam.ts";
import { systemClock } from "../../src/util/clock.ts";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { addUser, startTestGateway, type TestGateway } from "../gateway/helpers.ts";
import { WebClient } from "../gateway/web-client.ts";
import { TermSession } from "../tui/terminal.ts";

const open: TermSession[] = [];
const gateways: TestGateway[] = [];

function env(): Record<string, string> {
  const base = mkdtempSync(join(tmpdir(), "agent-connect-auth-"));
  return { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin", TERM: "xterm-256color", USER: "nobody-here" };
}

function connect(args: string[], e: Record<string, string>): TermSession {
  const t = new TermSession([BINARY, "connect", ...args], { cwd: tmpdir(), env: e, cols: 160 });
  open.push(t);
  return t;
}

function tokenFile(e: Record<string, string>, gw: TestGateway): string {
  return join(e.XDG_DATA_HOME!, "agent", "gateway-client", "tokens", `127.0.0.1_${gw.server.port}.json`);
}

/** Answers the clack username and password prompts. */
async function typeCredentials(t: TermSession, username: string, password: string, round = 1): Promise<void> {
  const count = (s: TermSession, word: string) => s.text().split(word).length - 1;
  await t.waitFor((s) => count(s, "Username") >= round, `username prompt #${round}`);
  t.write(username);
  await t.waitFor((s) => s.screen().includes(username), "the typed username");
  t.write("\r");
  await t.waitFor((s) => count(s, "Password") >= round, `password prompt #${round}`);
  t.write(password);
  await t.waitFor((s) => s.screen().includes("▪".repeat(password.length)), "the masked password");
  t.write("\r");
}

beforeAll(() => ensureBinary(), 180_000);

afterAll(async () => {
  for (const t of open) await t.close();
  for (const gw of gateways) await gw.stop();
}, 60_000);

describe("agent connect: device flow", () => {
  test("--device shows the verification URL and code; approving it on the gateway's /device page opens the picker", async () => {
    // The gateway enforces the polling interval on its clock: the real one, since the binary polls in real time.
    const gw = await startTestGateway("", { clock: systemClock, auth: "  oauth:\n    device_poll_interval_secs: 1\n" });
    gateways.push(gw);
    await addUser(gw, "ada", "correct horse battery");
    const e = env();
    const t = connect([`127.0.0.1:${gw.server.port}`, "--device"], e);

    await t.waitFor("Waiting for the approval", "the device prompt");
    const text = t.text().replace(/\s+/g, " ");
    const url = /open (http:\/\/\S+)/.exec(text)?.[1];
    const code = /approve the code ([A-Z0-9]{4}-[A-Z0-9]{4})/.exec(text)?.[1];
    expect(code).toBeDefined();
    expect(url).toBe(`${gw.url}/device?user_code=${code}`);
    expect(t.text()).not.toContain("Username");

    // A person signs in on the gateway's web page and approves the code with the machine scope.
    const web = new WebClient(gw.url);
    expect((await web.login("ada", "correct horse battery")).status).toBe(303);
    const page = await web.get(`/device?user_code=${code}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("agent connect");
    const approved = await web.post("/device/approve", { csrf: WebClient.csrf(html), user_code: code!, scope_machine: "1", scope_project: "1" });
    expect(approved.status).toBe(303);

    await t.waitFor("Sessions (0)", "the picker after the approval");
    expect(t.screen()).toContain("signed in as ada");
    expect(statSync(tokenFile(e, gw)).mode & 0o777).toBe(0o600);
    const grant = gw.ctx.sqlite!.query("SELECT d.status FROM oauth_device_codes d WHERE d.user_code = ?").get(code!) as { status: string };
    expect(grant.status).toBe("consumed");

    // The stored sign-in is used again: no device prompt the second time.
    await t.close();
    const again = connect([`127.0.0.1:${gw.server.port}`], e);
    await again.waitFor("Sessions (0)", "the picker with the stored sign-in");
    expect(again.text()).not.toContain("approve the code");
    await again.close();
  }, 60_000);
});

const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
const hasTools = Bun.which("useradd") !== null && Bun.which("chpasswd") !== null;
const pamReason = !isRoot ? "not running as root (creating a system user and an /etc/pam.d entry needs root)" : !hasTools ? "useradd/chpasswd are not installed" : pamUnavailableReason();
if (pamReason) console.log(`skipping the PAM sign-in of agent connect: ${pamReason}; the password test below covers the same prompts`);

describe.skipIf(Boolean(pamReason))("agent connect: PAM", () => {
  const suffix = randomBytes(3).toString("hex");
  const user = `agctest${suffix}`;
  const service = `agent-connect-test-${suffix}`;
  const password = `Pam-${randomBytes(6).toString("hex")}`;
  beforeAll(() => {
    const add = Bun.spawnSync(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", user]);
    if (add.exitCode !== 0) throw new Error(`useradd failed: ${add.stderr}`);
    const pw = Bun.spawnSync(["chpasswd"], { stdin: new TextEncoder().encode(`${user}:${password}\n`) });
    if (pw.exitCode !== 0) throw new Error(`chpasswd failed: ${pw.stderr}`);
    writeFileSync(`/etc/pam.d/${service}`, "auth required pam_unix.so nodelay\naccount required pam_unix.so\n");
  });
  afterAll(() => {
    rmSync(`/etc/pam.d/${service}`, { force: true });
    Bun.spawnSync(["userdel", user]);
  });

  test("the system account's password signs in through the prompts; the picker names the bound principal", async () => {
    const gw = await startTestGateway("", { pam: undefined, auth: `  pam: {service: ${service}}\n` });
    gateways.push(gw);
    // The principal has no gateway password: only PAM can let this sign-in through.
    const principal = await gw.ctx.principals.create("alice");
    await gw.ctx.principals.setPam(principal.id, service, user);
    const methods = await (await fetch(`${gw.url}/api/v1/auth/methods`)).json();
    expect(methods.methods).toContain("pam");
    const e = env();
    const t = connect([`127.0.0.1:${gw.server.port}`], e);
    await typeCredentials(t, user, password);
    await t.waitFor("Sessions (0)", "the picker after the PAM sign-in");
    expect(t.screen()).toContain("signed in as alice");
    expect(t.raw).not.toContain(password);
    expect(statSync(tokenFile(e, gw)).mode & 0o777).toBe(0o600);
    expect((await gw.ctx.audit.list({ limit: 5 })).some((a) => a.action === "login" && a.outcome === "success" && a.detail === "pam")).toBe(true);
    await t.close();
  }, 60_000);
});

describe("agent connect: password prompts", () => {
  test("a wrong password is said so and asked again; the right one opens the picker", async () => {
    const gw = await startTestGateway();
    gateways.push(gw);
    await addUser(gw, "ann", "pw-of-ann-42");
    const e = env();
    const t = connect([`127.0.0.1:${gw.server.port}`], e);
    await typeCredentials(t, "ann", "not-her-password");
    await t.waitFor("Wrong username or password.", "the refusal");
    await typeCredentials(t, "ann", "pw-of-ann-42", 2);
    await t.waitFor("Sessions (0)", "the picker after the second try");
    expect(t.screen()).toContain("signed in as ann");
    expect(t.raw).not.toContain("pw-of-ann-42");
    expect(t.raw).not.toContain("not-her-password");
    await t.close();
  }, 60_000);
});
