// Builds a session from the project's config: model and provider, facet and system prompt, tools,
// permissions, reminders. Hosts (`agent exec`, the daemon) call this; every setup problem is a
// SessionSetupError whose message tells the user what to change.
import { Checkpoints } from "./checkpoints/recorder.ts";
import { dataRoot, globalConfigDir, type Env } from "../config/files.ts";
import type { LoadedConfig } from "../config/load.ts";
import type { ResolvedModel } from "../config/models.ts";
import type { UntrustedPolicy } from "../config/trust/assess.ts";
import { DEMO_MODEL } from "./demo.ts";
import { systemClock, type Clock } from "../util/clock.ts";
import type { ResolvedProvider } from "../providers/resolve.ts";
import { DEFAULT_RETRY } from "../providers/settings.ts";
import { messageCost } from "../providers/cost.ts";
import type { FetchLike } from "../providers/http.ts";
import { deviceTokenSource } from "../providers/device-auth/vendors.ts";
import { createToolContext } from "../tools/context.ts";
import { exitTool } from "../tools/exit-tool.ts";
import { createProgressUpdateTool } from "../tools/progress-update.ts";
import { createToolRegistry } from "../tools/registry.ts";
import type { PlanItem } from "../protocol/plan.ts";
import { createToolSearchTool } from "../tools/tool-search.ts";
import type { Tool } from "../tools/tool.ts";
import { newId } from "../util/ids.ts";
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
import { facetTools } from "./facets/tool-filter.ts";
import type { Skill } from "./context/skills.ts";
import { buildSystemPrompt, instructionsReminder, promptModel } from "./context/system-prompt.ts";
import type { EngineEvent } from "./events.ts";
import type { PermissionGate } from "./permission.ts";
import type { Autonomy, SandboxOverrides } from "../sandbox/settings.ts";
import { Reminders } from "./reminders.ts";
import { compactionSettings } from "./compaction/settings.ts";
import { combinedTools, type ToolSet } from "./tool-set.ts";
import type { ExtensionManager } from "./extensions/manager.ts";
import type { McpManager } from "../mcp/manager.ts";
import { AgentSession } from "./session.ts";
import type { SubagentDefinitions } from "./subagents/definitions.ts";
import { SubagentHost } from "./subagents/host.ts";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { OfferedTools } from "./offered-tools.ts";
import { sessionCommands } from "./session-commands.ts";
import { loadSessionConfig } from "./session-config.ts";
import { startSessionExtensions } from "./session-extensions.ts";
import { sessionHooks, sessionStartHooks } from "./session-hooks.ts";
import { sessionMcp, startSessionMcp } from "./session-mcp.ts";
import { sessionPermissions } from "./session-permissions.ts";
import { readPromptContext } from "./session-prompt-context.ts";
import { SessionSetupError } from "./session-setup-error.ts";

/** Built-in default of `daemon.max_tool_turns` (the spec leaves it open; docs/decisions.md). */
export const DEFAULT_MAX_TOOL_TURNS = 100;

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

export async function createSessionFromConfig(opts: CreateSessionOptions): Promise<CreatedSession> {
  const clock = opts.clock ?? systemClock;
  const { loaded, trustNotice } = await loadSessionConfig(opts);
  const config = loaded.config;
  const daemon = config.daemon ?? {};

  const project = loaded.project;
  const followSymlinks = daemon.follow_symlinks_for_configs ?? true;
  const warnings: string[] = trustNotice ? [trustNotice] : [];
  const facetName = opts.facet ?? (opts.interactive ? config.active_session?.default_facet : config.active_session?.default_exec_facet) ?? "execute";
  const facetByName = (name: string) => resolveFacet(name, config, project.root, project.agentDir, followSymlinks, warnings);
  let facet;
  try {
    facet = facetByName(facetName);
  } catch (error) {
    if (error instanceof FacetError) throw new SessionSetupError("unknown_facet", error.message);
    throw error;
  }
  const globalDir = globalConfigDir(opts.env);
  const cwd = resolve(project.root, opts.cwd);
  const { instructionFiles, parts: promptParts } = readPromptContext(
    {
      projectRoot: project.root,
      repoRoot: project.repoRoot,
      agentDir: project.agentDir,
      globalConfigDir: globalDir,
      cwd,
      env: opts.env,
      clock,
      followSymlinks,
      instructionNames: daemon.instruction_files ?? undefined,
      shell: config.agent_behavior?.shell.command ?? "bash",
    },
    warnings,
  );
  const { instructions, local, git, skills, variables } = promptParts;
  const subagents = new SubagentHost({ loaded, followSymlinks, instructions, variables, local, git }, warnings);
  // Facet and model can switch later (/facet, /model; a resumed session takes back its last ones).
  const initialEvents = [...(opts.initialEvents ?? [])];
  let modes: SessionModes;
  try {
    modes = startModes({
      loaded,
      facet,
      model: opts.demo ? DEMO_MODEL : (opts.model ?? null),
      initialEvents,
      resolveFacet: facetByName,
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
  const { gate, contained, secrets, permissions, childEnv, scrub, summary } = await sessionPermissions(
    { loaded, env: opts.env, projectRoot: project.root, globalConfigDir: globalDir, clock, toolOutputDir, devices, fetch: opts.fetch, gate: opts.gate, sandbox: opts.sandbox, runRules: opts.runRules },
    warnings,
  );
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
  // What the model is offered: by its tool loading, from what the active facet allows (facetView, below).
  const offered = new OfferedTools(() => facetView.list(), () => modes.current.model.tool_loading);
  const engineTools: Tool[] = [
    createProgressUpdateTool((text) => emitProgress(text)),
    exitTool,
    subagents.tool,
    // A goal proposal needs someone to approve it: a headless run offers the goal tools only when proposals are accepted on their own.
    ...(opts.interactive || goals.settings.autoAccept ? createGoalTools(goals) : []),
    createToolSearchTool({ tools: () => facetView.list(), onFound: (names) => offered.add(names) }),
    ...(opts.extraTools ?? []),
  ];
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
  const hooks = sessionHooks(loaded, { sessionId, projectRoot: project.root, env: childEnv, clock, record: (e) => session.record(e), scrub }, warnings);
  const telemetry = await sessionTracer(opts.tracer, { block: config.telemetry, env: opts.env, secrets: loaded.secrets, warn: (m) => warnings.push(m) });
  const mcp = await sessionMcp({
    config,
    sessionDir: opts.sessionDir,
    env: opts.env,
    clock,
    projectRoot: project.root,
    tracer: telemetry.tracer,
    outputDir: toolOutputDir,
    scrub,
    interactive: opts.interactive,
    session: () => session,
  });
  // Slash commands beyond the built-ins: custom ones, user-invocable skills, tool servers' prompts.
  const dynamicCommands = sessionCommands({ loaded, projectRoot: project.root, globalConfigDir: globalDir, home: opts.env.HOME, followSymlinks, skills, mcp }, warnings);
  /** Set when the session closes: servers going down then are no news to anyone. */
  let closing = false;
  // Approved extensions load here, before the first turn; the others wait for the person (askApprovals).
  const extensions = await startSessionExtensions(
    { config, globalConfigDir: globalDir, agentDir: project.agentDir, projectRoot: project.root, env: opts.env, clock, interactive: opts.interactive, sessionDir: opts.sessionDir, scrub },
    warnings,
  );
  reminders.addSource((state) => extensions.reminderTexts({ model: state.model.key, lastToolRound: state.lastToolRound }));
  const tools = combinedTools(registry, () => [...(mcp?.tools() ?? []), ...extensions.tools()], daemon.disabled_tools ?? []);
  // What the active facet offers; the model in effect decides how (facet and model may switch).
  const facetView = facetTools(tools, () => modes.facet);
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
      toolSpecs: () => offered.specs(),
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
    dynamicCommands,
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
  const sessionStart = sessionStartHooks(hooks, session, initialEvents);
  checkpoints.bind((e) => session.record(e));
  session.subscribe((e) => checkpoints.apply(e));
  if (mcp) startSessionMcp(mcp, session, notifications, () => closing);
  session.subscribe((e) => {
    const path = e.type === "tool_call_completed" && e.result.name === "read" ? e.result.metadata?.path : undefined;
    if (typeof path === "string") {
      reminders.noteFileSeen(path);
      reachedPath(path);
    }
  });
  return { session, loaded, model, provider, facet: modes.facet.name, modes, notices: warnings, sandbox: summary, live: { skills, tools, mcp, subagents: subagents.definitions, extensions }, notifications, extensions, sessionStart };
}
