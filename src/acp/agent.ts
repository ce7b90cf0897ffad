// The ACP agent: initialize, authenticate, session/new, load, resume, close, list, prompt, cancel,
// set_mode and set_config_option (model, reasoning level), on the official SDK. Every ACP session is
// an ordinary daemon session (created, launched and listed as `agent new` does), so it outlives the
// editor and other clients can join it.
import { agent, PROTOCOL_VERSION, RequestError, type AgentApp, type AgentContext, type AgentCapabilities, type AuthMethod, type ClientCapabilities, type SessionInfo } from "@agentclientprotocol/sdk";
import { isAbsolute } from "node:path";
import type { DaemonHandle } from "../client/daemon-launch.ts";
import { DaemonRequestError } from "../client/daemon-client.ts";
import { levelRef, MODEL_OPTION, REASONING_OPTION } from "./modes.ts";
import { PromptContentError, toDaemonPrompt } from "./prompt-content.ts";
import { SessionLink } from "./session-link.ts";
import { slashCommand, sendCommandList } from "./slash-commands.ts";
import { toolServersFrom, type ToolServerConfig } from "./tool-servers.ts";

/** A provider login the editor can start (a device login: `agent auth provider login`). */
export interface LoginMethod {
  id: string;
  name: string;
  description: string;
  /** The arguments of this binary that run the login in a terminal. */
  args: string[];
  loggedIn: boolean;
  /** The session's default model uses this provider: no session starts before the login. */
  required: boolean;
}

/** What the agent needs from its host (the CLI): the session store and launcher, logins, a log. */
export interface AcpHost {
  version: string;
  createSession(cwd: string): { id: string; dir: string; project: string };
  /** An existing session, or null. */
  findSession(id: string): { dir: string; project: string } | null;
  sessionState(dir: string): string | null;
  listSessions(cwd: string | null): { id: string; project: string; title: string | null; updatedAt: number }[];
  writeToolServers(dir: string, servers: Record<string, ToolServerConfig>): void;
  /** Device logins of the providers the config in `cwd` names (none needed: empty). */
  logins(cwd: string): LoginMethod[];
  /** What must be set up before a session in `cwd` can start (no model provider configured), or null. */
  setupProblem?(cwd: string): string | null;
  launch(dir: string, resume: boolean): Promise<DaemonHandle>;
  log(message: string): void;
  retryDelayMs?: number;
}

export const AGENT_CAPABILITIES: AgentCapabilities = {
  loadSession: true,
  promptCapabilities: { image: true, audio: false, embeddedContext: true },
  mcpCapabilities: { http: true, sse: false },
  sessionCapabilities: { list: {}, resume: {}, close: {} },
};

export function createAcpAgent(host: AcpHost): { app: AgentApp; closeAll(): Promise<void> } {
  const sessions = new Map<string, SessionLink>();
  let client: ClientCapabilities = {};

  const linkOf = (sessionId: string): SessionLink => {
    const link = sessions.get(sessionId);
    if (!link) throw RequestError.sessionNotFound(sessionId);
    return link;
  };

  const authMethods = (cwd: string): AuthMethod[] =>
    host.logins(cwd).map((m) =>
      client.auth?.terminal ? { type: "terminal" as const, id: m.id, name: m.name, description: m.description, args: m.args } : { id: m.id, name: m.name, description: `${m.description} Run in a terminal: agent ${m.args.join(" ")}` },
    );

  /** A session cannot start while a provider it uses waits for its device login. */
  const requireLogins = (cwd: string) => {
    const missing = host.logins(cwd).filter((m) => m.required && !m.loggedIn);
    if (missing.length > 0) throw RequestError.authRequired({ methods: missing.map((m) => m.id) }, `log in first: ${missing.map((m) => `agent ${m.args.join(" ")}`).join("; ")}`);
  };

  /**
   * No provider: said before a session is made, as an error the editor shows, instead of a daemon that
   * exits during startup (auth_required: a key or a provider is the credential the editor's user lacks).
   */
  const requireSetup = (cwd: string) => {
    const problem = host.setupProblem?.(cwd);
    if (problem) throw RequestError.authRequired({ reason: "no_model_provider" }, problem);
  };

  const toolServers = (dir: string, servers: Parameters<typeof toolServersFrom>[0]) => {
    const { servers: config, skipped } = toolServersFrom(servers);
    if (skipped.length > 0) host.log(`tool servers over SSE are not supported and were left out: ${skipped.join(", ")}`);
    if (Object.keys(config).length > 0 || servers.length === 0) host.writeToolServers(dir, config);
  };

  const open = async (id: string, dir: string, project: string, ctx: AgentContext, resume: boolean, how: "new" | "load" | "resume") => {
    await sessions.get(id)?.close();
    const launch = (again: boolean) => host.launch(dir, again);
    let handle: DaemonHandle;
    try {
      handle = await launch(resume);
    } catch (error) {
      throw RequestError.internalError(undefined, error instanceof Error ? error.message : String(error));
    }
    const link = new SessionLink(id, project, handle, ctx, { launch, state: () => host.sessionState(dir), log: host.log, retryDelayMs: host.retryDelayMs });
    sessions.set(id, link);
    await link.start(how);
    return link;
  };

  const app = agent({ name: "agent" })
    .onRequest("initialize", ({ params }) => {
      client = params.clientCapabilities ?? {};
      return {
        protocolVersion: Math.min(params.protocolVersion, PROTOCOL_VERSION),
        agentCapabilities: AGENT_CAPABILITIES,
        agentInfo: { name: "agent", title: "agent", version: host.version },
        authMethods: authMethods(process.cwd()),
      };
    })
    .onRequest("authenticate", ({ params }) => {
      const method = host.logins(process.cwd()).find((m) => m.id === params.methodId);
      if (!method) throw RequestError.invalidParams(undefined, `unknown auth method '${params.methodId}'`);
      if (!method.loggedIn) throw RequestError.authRequired(undefined, `not logged in yet: run 'agent ${method.args.join(" ")}' in a terminal, then try again`);
      return {};
    })
    .onRequest("session/new", async ({ params, client: ctx }) => {
      if (!isAbsolute(params.cwd)) throw RequestError.invalidParams(undefined, "cwd must be an absolute path");
      requireSetup(params.cwd);
      requireLogins(params.cwd);
      const created = host.createSession(params.cwd);
      toolServers(created.dir, params.mcpServers);
      const link = await open(created.id, created.dir, created.project, ctx, false, "new");
      // Updates about the session go out once the editor knows it (right after this answer).
      setTimeout(() => {
        link.release();
        void sendCommandList(link);
      }, 0);
      return { sessionId: created.id, modes: link.modes(), configOptions: link.configOptions() };
    })
    .onRequest("session/load", async ({ params, client: ctx }) => {
      const found = host.findSession(params.sessionId);
      if (!found) throw RequestError.sessionNotFound(params.sessionId);
      if (params.mcpServers.length > 0) toolServers(found.dir, params.mcpServers);
      const link = await open(params.sessionId, found.dir, found.project, ctx, true, "load");
      setTimeout(() => void sendCommandList(link), 0);
      return { modes: link.modes(), configOptions: link.configOptions() };
    })
    .onRequest("session/resume", async ({ params, client: ctx }) => {
      const found = host.findSession(params.sessionId);
      if (!found) throw RequestError.sessionNotFound(params.sessionId);
      if (params.mcpServers && params.mcpServers.length > 0) toolServers(found.dir, params.mcpServers);
      // As session/load without the history: what happens from now on goes out after this answer.
      const link = await open(params.sessionId, found.dir, found.project, ctx, true, "resume");
      setTimeout(() => {
        link.release();
        void sendCommandList(link);
      }, 0);
      return { modes: link.modes(), configOptions: link.configOptions() };
    })
    .onRequest("session/close", async ({ params }) => {
      // The editor is done with the session: its prompts end as cancelled (as session/cancel) and it is
      // no longer followed. The daemon session goes on (other clients may be attached; idle exit stops it).
      const link = linkOf(params.sessionId);
      sessions.delete(params.sessionId);
      await link.cancel();
      await link.close();
      return {};
    })
    .onRequest("session/list", ({ params }) => {
      const list: SessionInfo[] = host.listSessions(params.cwd ?? null).map((s) => ({ sessionId: s.id, cwd: s.project, title: s.title, updatedAt: new Date(s.updatedAt).toISOString() }));
      return { sessions: list };
    })
    .onRequest("session/prompt", async ({ params }) => {
      const link = linkOf(params.sessionId);
      let input;
      try {
        input = toDaemonPrompt(params.prompt);
      } catch (error) {
        if (error instanceof PromptContentError) throw RequestError.invalidParams(undefined, error.message);
        throw error;
      }
      try {
        const command = await slashCommand(link, input);
        if (command) return command;
        return await link.prompt(input);
      } catch (error) {
        throw asRequestError(error);
      }
    })
    .onNotification("session/cancel", async ({ params }) => {
      await sessions.get(params.sessionId)?.cancel();
    })
    .onRequest("session/set_mode", async ({ params }) => {
      try {
        const link = linkOf(params.sessionId);
        await link.command("facet", [params.modeId]);
        await link.refreshActive();
      } catch (error) {
        throw asRequestError(error);
      }
      return {};
    })
    .onRequest("session/set_config_option", async ({ params }) => {
      const link = linkOf(params.sessionId);
      if ((params.configId !== MODEL_OPTION && params.configId !== REASONING_OPTION) || typeof params.value !== "string") {
        throw RequestError.invalidParams(undefined, `unknown config option '${params.configId}'; this agent offers '${MODEL_OPTION}' and '${REASONING_OPTION}'`);
      }
      // A reasoning level is a model reference too (`name(level)`): both go through /model.
      let ref = params.value;
      if (params.configId === REASONING_OPTION) {
        try {
          ref = levelRef(link.catalog, link.currentModel(), params.value);
        } catch (error) {
          throw RequestError.invalidParams(undefined, error instanceof Error ? error.message : String(error));
        }
      }
      try {
        await link.command("model", [ref]);
        await link.refreshActive();
      } catch (error) {
        throw asRequestError(error);
      }
      return { configOptions: link.configOptions() };
    });

  return {
    app,
    closeAll: async () => {
      await Promise.all([...sessions.values()].map((s) => s.close()));
      sessions.clear();
    },
  };
}

/** A daemon refusal keeps its message (the editor shows it); anything else is an internal error. */
function asRequestError(error: unknown): RequestError {
  if (error instanceof RequestError) return error;
  if (error instanceof DaemonRequestError) return new RequestError(error.status === 422 || error.code === "invalid_command" ? -32602 : -32603, error.message, { code: error.code });
  return RequestError.internalError(undefined, error instanceof Error ? error.message : String(error));
}
