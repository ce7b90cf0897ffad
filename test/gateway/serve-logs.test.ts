// What `agent gateway serve` tells its operator on stderr, as a user runs it: a PAM service file that is
// missing while PAM is offered is said at start, a PAM login that fails because of it is logged with the
// reason (the client still gets a bare 503), and authentication failures are logged as counts (one JSON
// line a minute and at shutdown; no token, username or password in any line). Real process, real HTTP.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pamUnavailableReason } from "../../src/gateway/auth/pam.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "cli", "main.ts");
const procs: ReturnType<typeof Bun.spawn>[] = [];

afterEach(() => {
  for (const p of procs.splice(0)) p.kill(9);
});

test.skipIf(pamUnavailableReason() !== undefined)("a missing PAM service file is said at start and at each failed login; auth failures are counted in JSON log lines", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-gw-logs-"));
  const service = `agent-gateway-missing-${process.pid}`;
  const config = join(dir, "gateway.yaml");
  writeFileSync(config, `data_dir: ${join(dir, "data")}\nlisten: {address: 127.0.0.1, port: 0}\nauth: {pam: {service: ${service}}}\n`);
  const env = { ...process.env, HOME: dir, XDG_DATA_HOME: join(dir, "xdg"), XDG_CONFIG_HOME: join(dir, "cfg") };
  const cli = (...args: string[]) => Bun.spawnSync(["bun", MAIN, "gateway", ...args, "--config", config], { env });
  expect(cli("principal", "create", "ada").exitCode).toBe(0);
  expect(cli("principal", "set-pam", "ada", "--system-user", "root").exitCode).toBe(0);

  const proc = Bun.spawn(["bun", MAIN, "gateway", "serve", "--config", config], { env, stdout: "pipe", stderr: "pipe" });
  procs.push(proc);
  let err = "";
  const errDone = (async () => {
    for await (const chunk of proc.stderr) err += new TextDecoder().decode(chunk);
  })();
  const reader = proc.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) out += new TextDecoder().decode((await reader.read()).value);
  const url = /listening on (\S+)/.exec(out)![1]!;
  const waitErr = async (needle: string) => {
    for (let i = 0; i < 200 && !err.includes(needle); i++) await Bun.sleep(25);
    return err;
  };
  expect(await waitErr("gateway.started")).toContain(`warning: PAM: /etc/pam.d/${service} is missing: PAM logins through service '${service}' fail (503) until it exists`);
  const lines = () => err.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(lines().find((l) => l.event === "auth.pam_misconfigured")).toMatchObject({ level: "warn", service });

  // A sign-in through the web form: the client sees 503, the log says why.
  const page = await fetch(`${url}/login`);
  const cookie = page.headers.get("set-cookie")!.split(";")[0]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
  const password = "correct horse battery staple";
  const login = await fetch(`${url}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { Cookie: cookie, Origin: url, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username: "ada", password, csrf }).toString(),
  });
  expect(login.status).toBe(503);
  await waitErr("auth.pam_error");
  const pamError = lines().find((l) => l.event === "auth.pam_error")!;
  expect(pamError).toMatchObject({ level: "error", service });
  expect(String(pamError.problem)).toContain(`/etc/pam.d/${service} is missing`);

  // Bad bearer tokens: counted, reported at shutdown.
  const forged = "pat_forged0123456789abcdefghijklmnopqrstuvwxyz";
  for (let i = 0; i < 3; i++) expect((await fetch(`${url}/api/v1/sessions`, { headers: { Authorization: `Bearer ${forged}` } })).status).toBe(401);
  proc.kill("SIGTERM");
  expect(await proc.exited).toBe(0);
  await errDone;
  const counts = lines().find((l) => l.event === "auth.failures")!;
  expect(counts).toMatchObject({ level: "warn", bearer_invalid: 3, login_error: 1 });
  expect(counts.total).toBe(4);
  for (const secret of [forged, password, "ada"]) expect(lines().map((l) => JSON.stringify(l)).join("\n")).not.toContain(secret);
}, 30_000);
