// `agent gateway session list|create|stop|resume|rm` as a script runs them: a real CLI process against a
// real gateway and real daemons; tables, --json, exit codes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { MAIN, registerProject, sessionGateway, stopGateway } from "./helpers.ts";

let gw: Awaited<ReturnType<typeof sessionGateway>>;
beforeAll(async () => {
  gw = await sessionGateway();
});
afterAll(() => stopGateway(gw));

async function agent(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const p = Bun.spawn([process.execPath, MAIN, "gateway", "session", ...args], { cwd: tmpdir(), env: { ...process.env, AGENT_GATEWAY_URL: gw.url, AGENT_GATEWAY_TOKEN: gw.token, ...env }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}

describe("agent gateway session", () => {
  test("create --wait, list, stop, resume, rm; exit codes for not found and conflicts", async () => {
    const { projectId } = await registerProject(gw);
    const created = await agent(["create", projectId, "--wait", "--json"]);
    expect(created.code).toBe(0);
    const session = JSON.parse(created.out);
    expect(session).toMatchObject({ project_id: projectId, state: "running", launch_mode: "project_direct" });

    const listed = await agent(["list"]);
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(/^ID\s+STATE\s+PROJECT\s+MODE\s+PORT\s+CREATED/);
    expect(listed.out).toContain(`${session.id}  running  ${projectId}`);

    const stopped = await agent(["stop", session.id]);
    expect([stopped.code, stopped.out]).toEqual([0, `Stopped session ${session.id}\n`]);
    const again = await agent(["stop", session.id]);
    expect(again.code).toBe(5);
    expect(again.err).toContain("409 conflict");
    expect(again.err).toContain("only a running session can be stopped");

    const resumed = await agent(["resume", session.id, "--json"]);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.out).state).toBe("running");

    expect(await agent(["rm", session.id])).toMatchObject({ code: 0, out: `Removed session ${session.id}\n` });
    const gone = await agent(["rm", session.id]);
    expect(gone.code).toBe(4);
    expect(gone.err).toContain("404");
  }, 60_000);

  test("bad input: unknown mode is a usage error, unknown project is 4, a bad token is refused without echoing it", async () => {
    const mode = await agent(["create", "00000000", "--mode", "container"]);
    expect(mode.code).toBe(2);
    expect(mode.err).toContain("container");
    const unknown = await agent(["create", "deadbeef"]);
    expect(unknown.code).toBe(4);
    expect(unknown.err).toContain("no project deadbeef");
    const secret = "pat_not-a-real-token-0123456789";
    const refused = await agent(["list"], { AGENT_GATEWAY_TOKEN: secret });
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("401");
    expect(refused.err + refused.out).not.toContain(secret);
  }, 60_000);
});
