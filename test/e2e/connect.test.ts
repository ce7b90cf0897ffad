// `agent connect` of the compiled binary in a real terminal (a PTY feeding @xterm/headless) against a real
// gateway whose sessions run the compiled daemon on the scripted `test` provider: sign in with a username
// and password, pick a project, start a session, chat, detach with one Ctrl+C (the session keeps running), reattach from
// the Sessions table with the stored sign-in, see a state change arrive live, resume a stopped session,
// and /kill-session. Then trust on first use against an HTTPS gateway reached by host name.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { lookup } from "node:dns/promises";
import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";
import { addUser, startTestGateway, type TestGateway } from "../gateway/helpers.ts";
import { api, registerProject, sessionGateway, stopGateway } from "../gateway/sessions/helpers.ts";
import { resolveTls, SELF_SIGNED_CERT, SELF_SIGNED_KEY } from "../../src/gateway/net/tls.ts";
import { TermSession } from "../tui/terminal.ts";

const open: TermSession[] = [];
const gateways: TestGateway[] = [];

function env(): Record<string, string> {
  const base = mkdtempSync(join(tmpdir(), "agent-connect-e2e-"));
  return { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "/usr/bin:/bin", TERM: "xterm-256color", USER: "nobody-here" };
}

function connect(target: string, e: Record<string, string>): TermSession {
  const t = new TermSession([BINARY, "connect", target], { cwd: tmpdir(), env: e, cols: 120 });
  open.push(t);
  return t;
}

/** Types text, waits until it shows, then presses Enter (text and CR in one chunk read as a paste). */
async function send(t: TermSession, text: string, shown = `› ${text}`): Promise<void> {
  t.write(text);
  await t.waitFor((s) => s.screen().includes(shown), `the input to show '${shown}'`);
  t.write("\r");
}

async function signInWithPassword(t: TermSession): Promise<void> {
  await t.waitFor("Username", "the username prompt");
  t.write("ann");
  await t.waitFor((s) => s.screen().includes("ann"), "the typed username");
  t.write("\r");
  await t.waitFor("Password", "the password prompt");
  t.write("pw-of-ann-42");
  await t.waitFor((s) => s.screen().includes("▪▪▪"), "the masked password");
  t.write("\r");
}

beforeAll(() => ensureBinary(), 180_000);

afterAll(async () => {
  for (const t of open) await t.close();
  // Session daemons outlive their gateway by design; a test must not leave them running.
  for (const gw of gateways) await stopGateway(gw);
});

describe("agent connect in a terminal (compiled binary)", () => {
  test("sign in, start a session in a project, chat, detach, reattach from Sessions, live state, resume, /kill-session", async () => {
    const gw = await sessionGateway();
    gateways.push(gw);
    gw.ctx.sessions.daemonCommand = [BINARY];
    await addUser(gw, "ann", "pw-of-ann-42");
    const { projectId, path } = await registerProject(gw, { script: "responses:\n  - text: hello from the remote daemon\n  - text: second remote answer\n  - text: third remote answer\n" });
    const target = `127.0.0.1:${gw.server.port}`;
    const e = env();

    const t = connect(target, e);
    await signInWithPassword(t);
    await t.waitFor("Sessions (0)", "the picker");
    expect(t.screen()).toContain("signed in as ann");
    expect(t.screen()).toContain("No sessions yet");
    const tokens = join(e.XDG_DATA_HOME!, "agent", "gateway-client", "tokens", `127.0.0.1_${gw.server.port}.json`);
    expect(statSync(tokens).mode & 0o777).toBe(0o600);
    expect(t.raw).not.toContain("pw-of-ann-42");

    t.write("n");
    await t.waitFor(/PROJECT\s+CONFIG\s+SESSIONS/, "the Projects table");
    const short = path.split("/").slice(-2).join("/");
    expect(t.screen()).toMatch(new RegExp(`› ${short}\\s+cfg-`));
    expect(t.screen()).not.toContain(path);
    t.write("\r");
    await t.waitFor("Type a message", "the conversation view");
    const id = /session (ses_[0-9a-z]+)/.exec(t.text())![1]!;
    expect(t.text()).toContain(`gateway`);
    await send(t, "hi there");
    await t.waitFor("hello from the remote daemon", "the streamed answer through the proxy");
    await t.waitFor(/ready\s/, "the turn to end");
    t.write("\x03"); // a single Ctrl+C detaches at once
    await t.waitFor(`Detached from session ${id}; it keeps running`, "the detach message");
    expect(await t.proc.exited).toBe(0);
    const after = await api(gw).get(id);
    expect(after.body.state).toBe("running");
    expect(after.body.project_id).toBe(projectId);

    // Reattach with the stored sign-in: no prompts, the session is in the Sessions table.
    const again = connect(target, e);
    await again.waitFor(new RegExp(`› ${id}\\s+running\\s+${short}`), "the running session in the Sessions table");
    expect(again.text()).not.toContain("Username");
    // A state change arrives from the fleet event stream without pressing r.
    expect((await api(gw).call("POST", `/api/v1/sessions/${id}/stop`)).status).toBe(200);
    await again.waitFor(new RegExp(`› ${id}\\s+stopped`), "the stopped state, live");
    again.write("\r");
    await again.waitFor("hello from the remote daemon", "the history after resuming");
    expect((await api(gw).get(id)).body.state).toBe("running");
    await again.waitFor("Type a message", "the prompt editor");
    await send(again, "more please");
    await again.waitFor("second remote answer", "an answer from the resumed daemon");

    await send(again, "/kill-session");
    await again.waitFor("Stop this session?", "the kill confirmation");
    expect(again.screen()).toContain(`in the picker of 'agent connect ${target}' resumes it`);
    again.write("\r"); // the default is Cancel
    await again.waitFor((s) => !s.screen().includes("Stop this session?"), "the dialog to close");
    expect((await api(gw).get(id)).body.state).toBe("running");
    await send(again, "/kill-session");
    await again.waitFor("Stop this session?", "the kill confirmation again");
    again.write("y");
    await again.waitFor(`Session ${id} stopped.`, "the stop message");
    expect(await again.proc.exited).toBe(0);
    expect((await api(gw).get(id)).body.state).toBe("stopped");
  }, 180_000);

  test("trust on first use: an HTTPS gateway reached by host name shows its fingerprint; declined without a terminal, pinned when accepted", async () => {
    const host = hostname();
    const address = await lookup(host).catch(() => null);
    expect(address?.address, `${host} must resolve to 127.0.0.1 for this test`).toBe("127.0.0.1");
    const dir = mkdtempSync(join(tmpdir(), "connect-tls-"));
    const material = (await resolveTls({ listen: { address: "0.0.0.0" }, tls: {} } as never, dir, new Date(), host))!;
    const gw = await startTestGateway(`tls:\n  cert_file: ${join(dir, SELF_SIGNED_CERT)}\n  key_file: ${join(dir, SELF_SIGNED_KEY)}\n`);
    gateways.push(gw);
    const target = `${host}:${gw.server.port}`;
    const e = env();

    // The gateway runs in this process: spawn without blocking it.
    const piped = Bun.spawn([BINARY, "connect", target], { env: e, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const [code, stderr] = await Promise.all([piped.exited, new Response(piped.stderr).text()]);
    expect(code).toBe(3);
    expect(stderr).toContain(material.fingerprint);
    expect(stderr).toContain("not trusted");

    const t = connect(target, e);
    await t.waitFor(`Trust this certificate for ${host.toLowerCase()}?`, "the trust prompt");
    expect(t.text()).toContain(material.fingerprint);
    expect(t.text()).toContain(`Agent Gateway for ${host}`);
    t.write("y");
    await t.waitFor("Username", "the sign-in after trusting");
    const pin = join(e.XDG_DATA_HOME!, "agent", "gateway-client", "fingerprints", `${host.toLowerCase()}.json`);
    expect(existsSync(pin)).toBe(true);
    expect(JSON.parse(readFileSync(pin, "utf8")).fingerprint).toBe(material.fingerprint);
    t.write("\x03");
    expect(await t.proc.exited).not.toBe(0);
  }, 60_000);
});
