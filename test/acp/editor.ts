// A test "editor": starts `agent acp` (from source, or dist/agent) as an editor would and talks to it with
// the official SDK's client side over the child's stdin/stdout. It records every session/update, and
// answers session/request_permission with whatever the test decides.
import { client, ndJsonStream, type ClientContext, type RequestPermissionRequest, type RequestPermissionResponse, type SessionNotification } from "@agentclientprotocol/sdk";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Readable, Writable } from "node:stream";

export const ROOT = resolve(import.meta.dir, "../..");
export const MAIN = join(ROOT, "src", "cli", "main.ts");

export interface World {
  base: string;
  project: string;
  env: Record<string, string>;
  /** `agent ARGS` from source in the project, synchronously. */
  agent(args: string[]): { code: number | null; stdout: string; stderr: string };
}

/** A throwaway HOME and data root, a git project, and a config on the scripted `test` provider. */
export function world(options: { script: string; permissions?: string; config?: string }): World {
  const base = mkdtempSync(join(tmpdir(), "agent-acp-"));
  const project = join(base, "proj");
  mkdirSync(join(project, ".git"), { recursive: true });
  const configDir = join(base, "config", "agent");
  mkdirSync(configDir, { recursive: true });
  const script = join(base, "script.yaml");
  writeFileSync(script, options.script);
  // An empty `config` writes no config file (the offline demo's own provider is then the only one).
  if (options.config !== "") writeFileSync(join(configDir, "config.yaml"), options.config ?? `providers:\n  offline: { kind: { type: catalog, name: test }, url: ${script} }\n`);
  if (options.permissions) writeFileSync(join(configDir, "permissions.yaml"), options.permissions);
  const env = { HOME: join(base, "home"), XDG_DATA_HOME: join(base, "data"), XDG_CONFIG_HOME: join(base, "config"), XDG_STATE_HOME: join(base, "state"), PATH: process.env.PATH ?? "/usr/bin:/bin" };
  const agent = (args: string[]) => {
    const r = spawnSync(process.execPath, [MAIN, ...args], { cwd: project, env, encoding: "utf8" });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  return { base, project, env, agent };
}

export type PermissionAnswer = (req: RequestPermissionRequest, signal: AbortSignal) => Promise<RequestPermissionResponse> | RequestPermissionResponse;

export interface Editor {
  ctx: ClientContext;
  updates: SessionNotification[];
  permissions: RequestPermissionRequest[];
  stderr(): string;
  /** Waits until an update matches (checks the ones already received first). */
  waitFor(match: (n: SessionNotification) => boolean, timeoutMs?: number): Promise<SessionNotification>;
  waitForPermission(timeoutMs?: number): Promise<RequestPermissionRequest>;
  close(): Promise<void>;
}

export async function startEditor(w: World, options: { answer?: PermissionAnswer; args?: string[]; fs?: boolean; binary?: string } = {}): Promise<Editor> {
  const command = options.binary ? [options.binary, "acp"] : [process.execPath, MAIN, "acp"];
  const child: ChildProcess = spawn(command[0]!, [...command.slice(1), ...(options.args ?? [])], { cwd: w.project, env: w.env, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const updates: SessionNotification[] = [];
  const permissions: RequestPermissionRequest[] = [];
  let wake: () => void = () => {};
  const app = client({ name: "test-editor" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params);
      wake();
    })
    .onRequest("session/request_permission", async ({ params, signal }) => {
      permissions.push(params);
      wake();
      if (options.answer) return options.answer(params, signal);
      return new Promise<RequestPermissionResponse>((resolve) => signal.addEventListener("abort", () => resolve({ outcome: { outcome: "cancelled" } }), { once: true }));
    });
  const stream = ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>);
  const connection = app.connect(stream);
  const ctx = connection.agent;
  const until = async <T>(find: () => T | undefined, timeoutMs: number, what: string): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = find();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr:\n${stderr}\nupdates:\n${updates.map((u) => JSON.stringify(u.update)).join("\n")}`);
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, 50);
      });
    }
  };
  await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: options.fs ?? false, writeTextFile: options.fs ?? false }, terminal: false } });
  return {
    ctx,
    updates,
    permissions,
    stderr: () => stderr,
    waitFor: (match, timeoutMs = 15_000) => until(() => updates.find(match), timeoutMs, "an update"),
    waitForPermission: (timeoutMs = 15_000) => until(() => permissions.at(-1), timeoutMs, "a permission request"),
    close: async () => {
      connection.close();
      child.stdin!.end();
      await new Promise<void>((r) => {
        if (child.exitCode !== null) return r();
        const timer = setTimeout(() => (child.kill("SIGKILL"), r()), 5000);
        child.once("exit", () => (clearTimeout(timer), r()));
      });
    },
  };
}

/** The text of the agent's message chunks, in order. */
export function agentText(updates: SessionNotification[], kind = "agent_message_chunk"): string {
  return updates
    .map((u) => u.update)
    .filter((u) => u.sessionUpdate === kind)
    .map((u) => ("content" in u && u.content && !Array.isArray(u.content) && u.content.type === "text" && "text" in u.content ? u.content.text : ""))
    .join("");
}

/** Ends every daemon a test started (their pids are in daemon.json of each session dir). */
export function stopDaemons(w: World): void {
  w.agent(["sessions", "list", "--json"]);
  const r = spawnSync("sh", ["-c", `for f in ${join(w.env.XDG_DATA_HOME!, "agent", "sessions")}/*/daemon.json; do [ -f "$f" ] && kill $(sed -E 's/.*"pid":([0-9]+).*/\\1/' "$f") 2>/dev/null; done; true`]);
  void r;
}
