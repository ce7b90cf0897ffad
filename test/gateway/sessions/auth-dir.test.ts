// daemon_sessions.auth_dir: a daemon spawned by the gateway reads provider auth profiles from the
// configured directory (`agent daemon --auth-dir`), not from the host data root's auth/.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DaemonClient } from "../../../src/client/daemon-client.ts";
import { dataRoot } from "../../../src/config/files.ts";
import type { SyncRecord } from "../../../src/protocol/sync-record.ts";
import { startProviderFake, type ProviderFake } from "../../fakes/provider-fake.ts";
import { api, deleteSessions, registerProject, sessionGateway, stopGateway } from "./helpers.ts";

function writeProfile(authDir: string, accessToken: string): void {
  mkdirSync(join(authDir, "providers"), { recursive: true, mode: 0o700 });
  const now = new Date().toISOString();
  const profile = { version: 1, kind: "device_a", profile: "work", provider: "fake", tokens: { access_token: accessToken, refresh_token: null, expires_at: null, token_type: "bearer", scope: null }, created_at: now, updated_at: now };
  writeFileSync(join(authDir, "providers", "work.json"), JSON.stringify(profile), { mode: 0o600 });
}

let fake: ProviderFake;
let gw: Awaited<ReturnType<typeof sessionGateway>>;
const authDir = join(mkdtempSync(join(tmpdir(), "gw-auth-dir-")), "profiles");

beforeAll(async () => {
  fake = startProviderFake("b_chat_completions", [{ kind: "turn", turn: { text: "answered with the profile" } }]);
  writeProfile(authDir, "at_from_configured_auth_dir");
  // The same profile name in the default place, which the daemon must not read.
  writeProfile(join(dataRoot(process.env), "auth"), "at_from_default_data_root");
  gw = await sessionGateway(`  auth_dir: ${authDir}\n`);
});
afterAll(async () => {
  await deleteSessions(gw);
  await stopGateway(gw);
  await fake.stop();
});

describe("daemon_sessions.auth_dir", () => {
  test("the session's provider authenticates with the profile stored in the configured auth directory", async () => {
    const config = `providers:
  fake: { kind: { type: custom_b_compatible }, url: "${fake.base}", auth: { type: device_a, profile: work } }
models:
  big: { provider: fake, class: full, context_window: 100000 }
defaults:
  full: big
  mini: big
default_permission_matcher: bypass
`;
    const a = api(gw);
    const project = await registerProject(gw, { config });
    const id = (await a.create(project.projectId)).body.id as string;
    const running = await a.settled(id);
    expect(running.state).toBe("running");

    const client = new DaemonClient({ url: `${gw.url}/api/v1/sessions/${id}/proxy`, token: gw.token, retryDelayMs: 20 });
    const view: SyncRecord[] = [];
    const follow = new AbortController();
    const following = client.follow({ onRecords: (records) => void view.push(...records) }, follow.signal);
    await client.prompt("hello");
    for (let i = 0; i < 600 && !view.some((r) => r.type === "turn_completed"); i++) await Bun.sleep(50);
    follow.abort();
    await following;

    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.headers.authorization).toBe("Bearer at_from_configured_auth_dir");
    expect(view.some((r) => r.type === "turn_completed")).toBe(true);
  });
});
