// Builds a session from the project's config: model and provider, facet and system prompt, tools,
// permissions, reminders. Hosts (`agent exec`, the daemon) call this; every setup problem is a
// SessionSetupError whose message tells the user what to change.
import { Checkpoints } from "./checkpoints/recorder.ts";
import { dataRoot, globalConfigDir, type Env } from "../config/files.ts";
import { loadConfig, type LoadedConfig } from "../config/load.ts";
import { resolveModels, type ResolvedModel } from "../config/models.ts";
import { resolveDefaults } from "../config/defaults.ts";
import { formatProblem, ProblemList } from "../config/problems.ts";
import { untrustedNotice, type UntrustedPolicy } from "../config/trust/assess.ts";
import { DEMO_MODEL, withDemoProvider, writeDemoScript } from "./demo.ts";
import { systemClock, type Clock } from "../util/clock.ts";
import type { ToolSpec } from "../providers/request.ts";
import type { ResolvedProvider } from "../providers/resolve.ts";
import { DEFAULT_RETRY } from "../providers/settings.ts";
import { messageCost } from "../providers/cost.ts";
import type { FetchLike } from "../providers/http.ts";
import { deviceTokenSource } from "../providers/device-auth/vendors.ts";
import { useRunningLocalServer, wantsLocalServer } from "../providers/local-detect.ts";
import { createToolContext } from "../tools/context.ts";
import { exitTool } from "../tools/exit-tool.ts";
import { createProgressUpdateTool } from "../tools/progress-update.ts";
import { createToolRegistry } from "../tools/registry.ts";
import type { PlanItem } from "../protocol/plan.ts";
import { defaultShellEnv } from "../tools/shell-env.ts";
import { createToolSearchTool } from "../tools/tool-search.ts";
import { toolJsonSchema, type Tool } from "../tools/tool.ts";
import { newId } from "../util/ids.ts";
import { redactText } from "../util/redact.ts";
import { traceProviderCall } from "../telemetry/engine-spans.ts";
import { sessionTracer } from "../telemetry/start.ts";
import type { Tracer } from "../telemetry/tracer.ts";
import { FacetError, facetNames, resolveFacet } from "./context/facets.ts";
import { ModelChoiceError } from "./facets/model-choice.ts";
import type { SessionModes } from "./facets/modes.ts";
import { startModes } from "./facets/start.ts";
import { GoalDriver, goalSettings } from "./goals/driver.ts";
import { createGoalTools } from "./goals/tools.ts";
import { NotificationCenter } from "./notifications/center.ts";
import { notifyChannels, UserAlerts } from "./notifications/user-alerts.ts";
import { Hooks } from "./hooks/hooks.ts";
import { hookSources } from "./hooks/sources.ts";
import { facetTools } from "./facets/tool-filter.ts";
import { loadSkills, type Skill } from "./context/skills.ts";
import { gitFacts, localTime } from "./context/environment.ts";
import { InstructionTracker } from "./context/instructions.ts";
import { buildSystemPrompt, instructionsReminder, promptModel } from "./context/system-prompt.ts";
import { loadVariables } from "./context/variables.ts";
import type { EngineEvent } from "./events.ts";
import type { PermissionGate } from "./permission.ts";
import { loadPermissionGate, PermissionRuleError, type Secrets } from "../permissions/index.ts";
import { sessionSandbox } from "../sandbox/session-sandbox.ts";
import type { CommandServices } from "./commands/types.ts";
import type { Autonomy, SandboxOverrides } from "../sandbox/settings.ts";
import { Reminders } from "./reminders.ts";
import { sessionLogSink } from "./session-log.ts";
import { compactionSettings } from "./compaction/settings.ts";
import { combinedTools, type ToolSet } from "./tool-set.ts";
import { ApprovalStore, approvalsFile } from "./extensions/approvals.ts";
import { ExtensionManager } from "./extensions/manager.ts";
import type { ExtensionRoot } from "./extensions/discover.ts";
import type { McpManager } from "../mcp/manager.ts";
import { AgentSession } from "./session.ts";
import { readSessionToolServers } from "./session-tool-servers.ts";
import type { SubagentDefinitions } from "./subagents/definitions.ts";
import { SubagentHost } from "./subagents/host.ts";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { REQUIRED_TOOL_NAMES } from "../config/builtin-names.ts";
import { mcpPromptCommands } from "./commands/mcp-prompts.ts";
import { SESSION_COMMANDS } from "./commands/index.ts";
import { customSessionCommands } from "./commands/custom/commands.ts";
import { loadCustomCommands } from "./commands/custom/load.ts";
import { askForm } from "./mcp-elicitation.ts";
import type { McpElicitation } from "../mcp/types.ts";

/** Built-in default of `daemon.max_tool_turns` (the spec leaves it open; docs/decisions.md). */
export const DEFAULT_MAX_TOOL_TURNS = 100;

export type SessionSetupCode = "config_invalid" | "no_model" | "unknown_model" | "unknown_facet" | "provider";

export class SessionSetupError extends Error {
  constructor(
    readonly code: SessionSetupCode,
    message: string,
  ) {
    super(message);
    this.name = "SessionSetupError";
  }
}

export interface CreateSessionOptions {
  cwd: string;
  env: Env;
  sessionId?: string;
  /** Where provider autopsy reports go (logging.provider_autopsy); none when null. */
  sessionDir?: string | null;
  /** A model key, optionally with an effort suffix: `name(level)`. Default: `defaults.full`. */
  model?: string | null;
  facet?: string | null;
  /** Interactive sessions take `active_session.default_facet`, headless ones `default_exec_facet`. */
  interactive: boolean;
  initialEvents?: Iterable<EngineEvent>;
  gate?: PermissionGate;
  clock?: Clock;
  configFile?: string;
  /** Untrusted project settings: left out (default), or kept for this run (`agent exec --trust-project`). */
  untrusted?: UntrustedPolicy;
  /** Added to the "not trusted" notice: how this host allows them for one run. */
  trustHint?: string;
  /** An already loaded config (the daemon reloads it itself). */
  loaded?: LoadedConfig;
  /** Tools from elsewhere (tool servers, tests), offered beside the built-ins. */
  extraTools?: Tool[];
  /** The HTTP client of provider calls (tests and benchmarks answer in-process). */
  fetch?: FetchLike;
  /** Run on the offline demo provider (src/agent/demo.ts) instead of a configured model. */
  demo?: boolean;
  /** Provider auth profiles directory (`agent daemon --auth-dir`); default `<data root>/auth`. */
  authDir?: string;
  /** The host process's tracer (the daemon's); absent: one from the telemetry block, stopped on close. */
  tracer?: Tracer;
  /** This run's `--sandbox` / `--autonomy` / `--full-auto` (src/sandbox/settings.ts). */
  sandbox?: SandboxOverrides;
  /** This run's `--allow` / `--deny` rules. */
  runRules?: { allow?: readonly string[]; deny?: readonly string[] };
}

export interface CreatedSession {
  session: AgentSession;
  loaded: LoadedConfig;
  model: ResolvedModel;
  provider: ResolvedProvider;
  facet: string;
  /** The facet and model in effect now (they switch with /facet, /model): what a host reports as session state. */
  modes: SessionModes;
  /** Things worth telling the user (skipped symlinks, disabled required tools). */
  notices: string[];
  /** Where shell commands run (`workspace_write, no network`, or `off`) and the autonomy in effect. */
  sandbox: { description: string; autonomy: Autonomy };
  /** What the daemon catalog describes live: loaded skills, the session's tools and tool servers. */
  live: SessionCatalogView;
  /** Where notifications for the model come in (tool server changes; hosts may add sources). */
  notifications: NotificationCenter;
  /** The session's extensions; a host that records questions calls `askApprovals()` once it listens. */
  extensions: ExtensionManager;
  /** Runs the SessionStart hooks (startup, or resume); a host calls it once it records the session's events. */
  sessionStart(): Promise<void>;
}

export interface SessionCatalogView {
  skills: readonly Skill[];
  tools: ToolSet;
  mcp: McpManager | null;
  /** The subagent definitions the session read at start (what its `task` tool offers). */
  subagents?: SubagentDefinitions;
  /** Loaded extensions (only those are published). */
  extensions?: ExtensionManager;
}

export { NO_MODEL_HELP } from "./facets/model-choice.ts";

function withDemo(loaded: LoadedConfig, env: Env): LoadedConfig {
  const config = withDemoProvider(loaded.config, writeDemoScript(dataRoot(env)));
  const problems = new ProblemList();
  const models = resolveModels(config, problems);
  return { ...loaded, config, models, defaults: resolveDefaults(config, models, problems) };
}

export async function createSessionFromConfig(opts: CreateSessionOptions): Promise<CreatedSession> {
  const clock = opts.clock ?? systemClock;
  let loaded = opts.loaded ?? loadConfig({ cwd: opts.cwd, env: opts.env, configFile: opts.configFile, untrusted: opts.untrusted });
  // Said first, so a person reads why a tool server or script is missing before anything else.
  const trustNotice = loaded.trust.active ? null : untrustedNotice(loaded.trust, opts.cwd, opts.trustHint);
  if (!loaded.ok) {
    const errors = loaded.problems.filter((p) => p.severity === "error").map(formatProblem);
    throw new SessionSetupError("config_invalid", `the config has errors (run \`agent config validate\` for details):\n${[...errors, ...(trustNotice ? [trustNotice] : [])].join("\n")}`);
  }
  if (opts.demo) loaded = withDemo(loaded, opts.env);
  // Nothing configured and no key: a local server answering on its default port (a bounded probe).
  if (!opts.demo && !opts.loaded && wantsLocalServer(loaded) && (await useRunningLocalServer(opts.env)))
    loaded = loadConfig({ cwd: opts.cwd, env: opts.env, configFile: opts.configFile, untrusted: opts.untrusted });
  const config = loaded.config;
  const daemon = config.daemon ?? {};

  const project = loaded.project;
  const followSymlinks = daemon.follow_symlinks_for_configs ?? true;
  const warnings: string[] = trustNotice ? [trustNotice] : [];
  const facetName = opts.facet ?? (opts.interactive ? config.active_session?.default_facet : config.active_session?.default_exec_facet) ?? "execute";
  let facet;
  try {
    facet = resolveFacet(facetName, config, project.root, project.agentDir, followSymlinks, warnings);
  } catch (error) {
    if (error instanceof FacetError) throw new SessionSetupError("unknown_facet", error.message);
    throw error;
  }
  const globalDir = globalConfigDir(opts.env);
  const cwd = resolve(project.root, opts.cwd);
  const instructionFiles = new InstructionTracker(
    { globalConfigDir: globalDir, projectRoot: project.root, repoRoot: project.repoRoot, agentDir: project.agentDir, cwd, followSymlinks, names: daemon.instruction_files ?? undefined },
    warnings,
  );
  const instructions = instructionFiles.initial();
  // Read once: the system prompt stays the same from request to request.
  const local = localTime(clock, opts.env.TZ);
  const git = gitFacts(cwd, opts.env);
  const skillDirs: { dir: string; origin: "global" | "project" }[] = [{ dir: join(globalDir, "skills"), origin: "global" }];
  if (project.agentDir) skillDirs.push({ dir: join(project.agentDir, "skills"), origin: "project" });
  const skills = loadSkills(skillDirs, followSymlinks, warnings);
  const variables = loadVariables(project.agentDir, followSymlinks, warnings);
  const subagents = new SubagentHost({ loaded, followSymlinks, instructions, variables, local, git }, warnings);
  // Facet and model can switch later (/facet, /model; a resumed session takes back its last ones).
  const initialEvents = [...(opts.initialEvents ?? [])];
  const promptParts = { projectRoot: project.root, cwd, shell: config.agent_behavior?.shell.command ?? "bash", local, git, instructions, skills, variables };
  let modes: SessionModes;
  try {
    modes = startModes({
      loaded,
      facet,
      model: opts.demo ? DEMO_MODEL : (opts.model ?? null),
      initialEvents,
      resolveFacet: (name) => resolveFacet(name, config, project.root, project.agentDir, followSymlinks, warnings),
      facetNames: () => facetNames(config, project.agentDir),
      systemPromptFor: (f, choice) => buildSystemPrompt({ ...promptParts, facet: f, model: promptModel(choice) }),
    }, warnings);
  } catch (error) {
    // A model the project chose may be what was left out: the user reads why with the error.
    if (error instanceof ModelChoiceError) throw new SessionSetupError(error.code, trustNotice ? `${error.message.trimEnd()}\n${trustNotice}` : error.message);
    throw error;
  }
  const { model, provider } = modes.current;

  const sessionId = opts.sessionId ?? newId("ses", clock.now());
  // Whole tool outputs over a tool's cap (shell, tool servers), for the model to read back.
  const toolOutputDir = join(opts.sessionDir ?? join(tmpdir(), `agent-${sessionId}`), "tool-output");
  // Restore points live with the session: deleting the session deletes them.
  const checkpoints = new Checkpoints(join(opts.sessionDir ?? join(tmpdir(), `agent-${sessionId}`), "checkpoints"), project.root, opts.env, initialEvents);
  const devices = deviceTokenSource(dataRoot(opts.env), { clock, trustStore: loaded.trustStore ?? null }, opts.authDir);
  const contained = sessionSandbox(loaded, opts.env, project.root, opts.sandbox);
  warnings.push(...contained.notices);
  let gate: PermissionGate;
  let secrets: Secrets | null = null;
  let permissions: CommandServices["permissions"];
  if (opts.gate) gate = opts.gate;
  else {
    try {
      const loadedGate = await loadPermissionGate({
        loaded,
        projectRoot: project.root,
        globalConfigDir: globalDir,
        clock,
        home: opts.env.HOME,
        toolOutputDir,
        sandbox: { active: contained.sandbox !== null, autonomy: contained.autonomy, description: contained.description },
        ...(opts.runRules ? { runRules: opts.runRules } : {}),
        providerDeps: { trustStore: loaded.trustStore ?? null, devices, ...(opts.fetch ? { fetch: opts.fetch } : {}) },
      });
      warnings.push(...loadedGate.warnings);
      secrets = loadedGate.secrets;
      gate = loadedGate;
      permissions = { get autonomy() { return loadedGate.autonomy; }, setAutonomy: (level) => loadedGate.setAutonomy(level), sandbox: contained.description };
    } catch (error) {
      if (error instanceof PermissionRuleError) throw new SessionSetupError("config_invalid", error.message);
      throw error;
    }
  }
  const reminders = new Reminders(daemon.system_reminders?.disabled ?? []);
  /** A tool read or changed `path`: the instruction files of directories reached for the first time. */
  const reachedPath = (path: string) => {
    if (!reminders.enabled("instructions")) return;
    const found = instructionFiles.touch(path);
    if (found.files.length > 0 || found.leftOut.length > 0) reminders.raise("instructions", instructionsReminder(found, variables), true);
  };
  const notifications = new NotificationCenter(config.notifications?.auto_drain_notifications ?? true, { clock, newId: (prefix) => newId(prefix, clock.now()) }, initialEvents);
  const goals = new GoalDriver(goalSettings(daemon.goal_driver), { clock, newId: (prefix) => newId(prefix, clock.now()), reminders }, initialEvents);
  let emitProgress: (text: string) => void = () => {};
  let emitPlan: (items: PlanItem[]) => void = () => {};
  const toolContext = createToolContext({
    projectRoot: project.root,
    cwd: opts.cwd,
    clock,
    supportsVision: model.supports_vision,
    fileCatalog: daemon.file_catalog,
    onFileMutated: (path) => {
      reminders.noteFileSeen(path);
      reachedPath(path);
    },
    ...(secrets?.hasSecretFiles ? { isSecretFile: (path: string) => secrets!.isSecretFile(path) } : {}),
  });
  // Deferred loading: the model starts with the required tools and the ones tool_search found since.
  const offered = new Set<string>(REQUIRED_TOOL_NAMES);
  const engineTools: Tool[] = [
    createProgressUpdateTool((text) => emitProgress(text)),
    exitTool,
    subagents.tool,
    // A goal proposal needs someone to approve it: a headless run offers the goal tools only when proposals are accepted on their own.
    ...(opts.interactive || goals.settings.autoAccept ? createGoalTools(goals) : []),
    createToolSearchTool({ tools: () => facetView.list(), onFound: (names) => names.forEach((n) => offered.add(n)) }),
    ...(opts.extraTools ?? []),
  ];
  const baseEnv = () => defaultShellEnv(opts.env);
  /** What child processes (the shell, hooks, the notify program) get: no secret words. */
  const childEnv = () => (secrets ? secrets.filterEnv(baseEnv()) : baseEnv());
  const registry = createToolRegistry({
    editFormat: model.edit_format,
    // OpenAI's models are trained on `apply_patch` (the `gpt` prompt variant's families).
    patchName: promptModel(modes.current).variant === "gpt" ? "apply_patch" : "edit",
    disabledTools: daemon.disabled_tools ?? [],
    extraTools: engineTools,
    onPlan: (items) => emitPlan(items),
    session: {
      projectRoot: project.root,
      shell: config.agent_behavior?.shell ?? { command: "bash" },
      // secret_words never reach the shell's environment.
      shellEnv: childEnv,
      web: daemon.web ?? null,
      trustStore: loaded.trustStore ?? null,
      search: config.integrations?.search ?? null,
      outputDir: toolOutputDir,
      sandbox: contained.sandbox,
    },
  });
  warnings.push(...registry.warnings);
  const scrub = secrets ? (text: string) => secrets!.redact(text) : (text: string) => redactText(text, loaded.secrets.filter((x) => x.length > 0));
  const hooks = new Hooks(hookSources(loaded), { sessionId, projectRoot: project.root, env: childEnv, clock, record: (e) => session.record(e), scrub }, warnings);
  const telemetry = await sessionTracer(opts.tracer, { block: config.telemetry, env: opts.env, secrets: loaded.secrets, warn: (m) => warnings.push(m) });
  // Servers start in a read-only facet too (a switch to execute offers their tools); the facet hides them.
  // An editor's servers (agent acp) join the config's; a config server of the same name wins.
  const mcpServers = { ...readSessionToolServers(opts.sessionDir), ...config.mcp_servers };
  const hasServers = Object.keys(mcpServers).length > 0;
  const mcp = hasServers
    ? // The MCP SDK (and its schema libraries) load only for sessions that have tool servers.
      (await import("../mcp/index.ts")).createMcpManager({
        servers: mcpServers as never,
        dataRoot: dataRoot(opts.env),
        clock,
        log: sessionLogSink(opts.sessionDir, () => clock.now(), scrub),
        cwd: project.root,
        env: opts.env,
        tracer: telemetry.tracer,
        outputDir: toolOutputDir,
        // A client (the TUI) shows the form; headless (agent exec) a server's request for input is declined, and said.
        ...(opts.interactive ? { elicit: (request: McpElicitation, signal: AbortSignal) => askForm(session, request, signal) } : {}),
        onDeclined: (server, message) => session.notice("warning", `tool server ${server} asked for input ("${message}"); this session cannot ask you, so it was declined`),
      })
    : null;
  // Servers' prompts are slash commands (`/mcp__<server>__<prompt>`), listed as servers connect.
  const promptCommands = mcp ? mcpPromptCommands(mcp) : null;
  // Custom commands (.agent/commands, .claude/commands, the user's) and user-invocable skills: `/name args`.
  const builtinNames = new Set(SESSION_COMMANDS.map((c) => c.name));
  const customDefs = loadCustomCommands({ projectRoot: project.root, globalConfigDir: globalDir, home: opts.env.HOME, followSymlinks }, builtinNames, warnings);
  const trustedCommands = new Set(loaded.trust.active ? loaded.trust.items.filter((i) => i.kind === "project_command").map((i) => i.key) : []);
  const customCommands = customSessionCommands(customDefs, skills, builtinNames, { projectRoot: project.root, followSymlinks, projectShellTrusted: (name) => trustedCommands.has(`commands.${name}`) }, warnings);
  /** Set when the session closes: servers going down then are no news to anyone. */
  let closing = false;
  // Approved extensions load here, before the first turn; the others wait for the person (askApprovals).
  const extensionRoots: ExtensionRoot[] = [{ dir: join(globalDir, "extensions"), origin: "global" }];
  if (project.agentDir) extensionRoots.push({ dir: join(project.agentDir, "extensions"), origin: "project" });
  const extensions = new ExtensionManager({
    roots: extensionRoots,
    plugins: (config.plugins ?? {}) as Record<string, unknown>,
    store: new ApprovalStore(approvalsFile(dataRoot(opts.env)), () => clock.now()),
    projectRoot: project.root,
    interactive: opts.interactive,
    sessionDir: opts.sessionDir,
    now: () => clock.now(),
    scrub,
  });
  await extensions.start(warnings);
  reminders.addSource((state) => extensions.reminderTexts({ model: state.model.key, lastToolRound: state.lastToolRound }));
  const tools = combinedTools(registry, () => [...(mcp?.tools() ?? []), ...extensions.tools()], daemon.disabled_tools ?? []);
  // What the active facet offers; the model in effect decides how (facet and model may switch).
  const facetView = facetTools(tools, () => modes.facet);
  const toolSpecs = (): ToolSpec[] => {
    const loading = modes.current.model.tool_loading;
    if (loading === "no_tools") return [];
    // tool_search finds tools to load later: with eager loading every tool is offered already, so it is not.
    const list = loading === "native_deferred" ? facetView.list().filter((t) => offered.has(t.name)) : facetView.list().filter((t) => t.name !== "tool_search");
    return list.map((t) => ({ name: t.name, description: t.description, input_schema: toolJsonSchema(t) }));
  };
  const session = new AgentSession({
    runtime: {
      sessionId,
      facet: modes.facet.name,
      model,
      reasoning: modes.current.reasoning,
      provider,
      retry: { ...DEFAULT_RETRY, ...(daemon.retry ?? {}) },
      callDeps: {
        clock,
        trustStore: loaded.trustStore ?? null,
        ...(opts.fetch ? { fetch: opts.fetch } : {}),
        devices,
        stream: { provider_stream_idle_timeout_secs: daemon.provider_stream_idle_timeout_secs, provider_stream_max_lifetime_secs: daemon.provider_stream_max_lifetime_secs },
        cwd: opts.cwd,
        autopsy: opts.sessionDir ? { enabled: daemon.logging?.provider_autopsy ?? false, sessionDir: opts.sessionDir } : null,
        traceCall: (info, events) => traceProviderCall(telemetry.tracer, info, events),
      },
      clock,
      newId: (prefix) => newId(prefix, clock.now()),
      systemPrompt: () => modes.systemPrompt,
      tools: facetView,
      toolSpecs,
      toolContext,
      maxToolTurns: daemon.max_tool_turns || DEFAULT_MAX_TOOL_TURNS,
      reminders,
      scrub,
      inbox: notifications,
      tracer: telemetry.tracer,
      compaction: compactionSettings(loaded, warnings),
      costOf: messageCost(loaded, opts.env),
      checkpoints,
      hooks,
    },
    gate,
    interactive: opts.interactive,
    initialEvents,
    services: { mcp, modes, goals, extensions, checkpoints, ...(permissions ? { permissions } : {}) },
    dynamicCommands: () => (promptCommands ? [...customCommands, ...promptCommands.commands()] : customCommands),
    // Between turns: late auto-drained notifications go in first, then an open goal may continue.
    continuation: () => {
      notifications.betweenTurns();
      return goals.continuation();
    },
    onClose: async () => {
      closing = true;
      extensions.close();
      await Promise.all([registry.close(), mcp?.close()]);
      await telemetry.close();
    },
  });
  emitProgress = (text) => session.progress(text);
  emitPlan = (items) => session.planUpdated(items);
  subagents.attach(session.engineRuntime);
  extensions.bind(session);
  session.subscribe((e) => modes.fold.apply(e));
  goals.bind(session);
  notifications.bind(session);
  session.subscribe((e) => goals.apply(e));
  // Turn ends, waiting questions and finished goals reach the person with no view attached (notify program, Notification hooks).
  const alerts = new UserAlerts({
    sessionId,
    projectRoot: project.root,
    program: config.notify ?? null,
    channels: notifyChannels(config.notify_events),
    env: childEnv,
    conversation: () => session.conversation,
    hooks,
    warn: (message) => session.notice("warning", message),
  });
  session.subscribe((e) => alerts.observe(e));
  const sessionStart = async () => {
    if (!hooks.has("SessionStart")) return;
    const source = initialEvents.length > 0 ? "resume" : "startup";
    const v = await hooks.run("SessionStart", { source }, { turnId: "", target: source });
    if (v.context) session.addContext(`<hook-context event="SessionStart">\n${v.context}\n</hook-context>`);
  };
  checkpoints.bind((e) => session.record(e));
  session.subscribe((e) => checkpoints.apply(e));
  if (mcp) {
    // A server's first connection is not news to the model (it never saw those tools); later changes are:
    // tools it may have used came or went. Nothing is said once the session is closing.
    const settled = new Set<string>();
    mcp.onChange((e) => {
      const s = e.server;
      if (closing) return;
      const detail = s.state === "connected" ? ` (${s.toolCount} tools)` : s.reason ? `: ${s.reason}` : "";
      session.notice(s.state === "failed" ? "warning" : "info", `tool server ${s.name}: ${s.state}${detail}`);
      for (const warning of s.warnings ?? []) session.notice("warning", `tool server ${s.name}: ${warning}`);
      if (settled.has(s.name)) notifications.notify(`mcp:${s.name}`, `Tool server ${s.name} is now ${s.state}${detail}; its tools are ${s.state === "connected" ? "available" : "unavailable"}.`);
      else if (s.state !== "connecting") settled.add(s.name);
    });
    // Servers connect in the background (each within its startup_timeout_seconds): the session starts at
    // once, and a server's tools join the catalog when it is ready.
    void mcp.start();
  }
  session.subscribe((e) => {
    const path = e.type === "tool_call_completed" && e.result.name === "read" ? e.result.metadata?.path : undefined;
    if (typeof path === "string") {
      reminders.noteFileSeen(path);
      reachedPath(path);
    }
  });
  return { session, loaded, model, provider, facet: modes.facet.name, modes, notices: warnings, sandbox: { description: contained.description, get autonomy() { return permissions?.autonomy ?? contained.autonomy; } }, live: { skills, tools, mcp, subagents: subagents.definitions, extensions }, notifications, extensions, sessionStart };
}
