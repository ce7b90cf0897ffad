// The subagents of one session: their definitions, the `task` tool that starts them, the limit on how
// many run at once, and the stall watchdog over the running ones. create-session.ts builds it before the
// session (the tool is offered with the others) and attaches the session once it exists.
import type { LoadedConfig } from "../../config/load.ts";
import { toolError, type Tool, type ToolResult } from "../../tools/tool.ts";
import type { GitFacts, LocalTime } from "../context/environment.ts";
import type { InstructionSet } from "../context/instructions.ts";
import { buildSystemPrompt, promptModel } from "../context/system-prompt.ts";
import { promptFacet } from "../context/facets.ts";
import type { ContextWarnings } from "../context/context-file.ts";
import { chooseModel, ModelChoiceError } from "../facets/model-choice.ts";
import type { AgentRuntime } from "../runtime.ts";
import { loadSubagentDefinitions, type DefinitionSources, type SubagentDefinition, type SubagentDefinitions } from "./definitions.ts";
import { SubagentRun, type SubagentModelChoice, type SubagentOutcome } from "./run.ts";
import { MAX_CONCURRENT_SUBAGENTS, resolveStallSettings, type StallSettings } from "./settings.ts";
import { createTaskTool, type TaskRequest } from "./task-tool.ts";
import { StallWatchdog } from "./watchdog.ts";

export interface SubagentHostOptions {
  loaded: LoadedConfig;
  followSymlinks: boolean;
  /** The session's instruction files, variables and environment: a subagent follows the same instructions. */
  instructions: InstructionSet;
  local: LocalTime;
  git: GitFacts | null;
  variables: Record<string, string>;
}

/** Where the definitions of a loaded config come from (the session and the daemon catalog agree). */
export function definitionSources(loaded: LoadedConfig, followSymlinks: boolean): DefinitionSources {
  return {
    config: loaded.config,
    projectRoot: loaded.project.root,
    agentDir: loaded.project.agentDir,
    followSymlinks,
    models: new Map([...loaded.models.models.values()].sort((a, b) => a.key.localeCompare(b.key)).map((m) => [m.key, m.reasoning.type === "effort" ? m.reasoning.levels : null])),
  };
}

export class SubagentHost {
  readonly definitions: SubagentDefinitions;
  readonly tool: Tool;
  readonly stall: StallSettings;
  private parent: AgentRuntime | null = null;
  private watchdog: StallWatchdog | null = null;
  private readonly running = new Map<string, SubagentRun>();

  constructor(
    private readonly options: SubagentHostOptions,
    warnings: ContextWarnings,
  ) {
    this.definitions = loadSubagentDefinitions(definitionSources(options.loaded, options.followSymlinks), warnings);
    // Read once: the daemon starts the session, so changing these needs a restart.
    this.stall = resolveStallSettings(options.loaded.config.daemon);
    this.tool = createTaskTool([...this.definitions.usable.values()], (request, signal) => this.delegate(request, signal));
  }

  /** `runtime`: the root session's (AgentSession.engineRuntime), with its events and asks bound in. */
  attach(runtime: AgentRuntime): void {
    this.parent = runtime;
    this.watchdog = new StallWatchdog(runtime.clock, this.stall, () => this.running.values());
  }

  private async delegate(request: TaskRequest, signal: AbortSignal): Promise<ToolResult> {
    const parent = this.parent;
    if (!parent || !this.watchdog) return toolError("Subagents are not available in this session.");
    const definition = this.definitions.usable.get(request.subagent);
    if (!definition) {
      const broken = this.definitions.broken.get(request.subagent);
      if (broken) return toolError(`The subagent '${request.subagent}' cannot be used because its definition is invalid: ${broken}. Tell the user; use another subagent meanwhile.`);
      return toolError(`There is no subagent named '${request.subagent}'. Available: ${[...this.definitions.usable.keys()].join(", ")}.`);
    }
    if (this.running.size >= MAX_CONCURRENT_SUBAGENTS) {
      return toolError(
        `Not started: ${this.running.size} subagents are already running in this session, the most allowed at once (${MAX_CONCURRENT_SUBAGENTS}). Wait for their reports, then call \`task\` again for this one.`,
      );
    }
    let choice: SubagentModelChoice;
    try {
      choice = this.modelFor(definition, parent);
    } catch (error) {
      if (error instanceof ModelChoiceError) return toolError(`The subagent '${definition.name}' cannot start: ${error.message}. Tell the user; use another subagent meanwhile.`);
      throw error;
    }
    const run = new SubagentRun({
      id: parent.newId("sub"),
      definition,
      description: request.description,
      prompt: request.prompt,
      parentToolCallId: request.callId,
      parent,
      choice,
      systemPrompt: this.systemPrompt(definition, parent, choice),
      disabledReminders: this.options.loaded.config.daemon?.system_reminders?.disabled ?? [],
    });
    this.running.set(run.id, run);
    this.watchdog.start();
    try {
      return toToolResult(definition, await run.run(signal), run.id);
    } finally {
      this.running.delete(run.id);
      if (this.running.size === 0) this.watchdog.stop();
    }
  }

  private modelFor(definition: SubagentDefinition, parent: AgentRuntime): SubagentModelChoice {
    const m = definition.model;
    if (m.kind === "inherit") return { model: parent.model, provider: parent.provider, reasoning: parent.reasoning };
    if (m.kind === "pin") return chooseModel(this.options.loaded, m.ref);
    const tier = this.options.loaded.defaults[m.class];
    if (!tier) throw new ModelChoiceError("no_model", `its model class '${m.class}' has no model (set defaults.${m.class} or defaults.full)`);
    return chooseModel(this.options.loaded, tier.effort ? `${tier.model}(${tier.effort})` : tier.model);
  }

  private systemPrompt(definition: SubagentDefinition, parent: AgentRuntime, choice: SubagentModelChoice): string {
    const config = this.options.loaded.config;
    return buildSystemPrompt({
      // Only the prompt of the facet is read: the subagent's definition takes the facet's place.
      facet: promptFacet(definition.name, definition.prompt, definition.source),
      projectRoot: parent.toolContext.projectRoot,
      cwd: parent.toolContext.cwd,
      shell: config.agent_behavior?.shell.command ?? "bash",
      local: this.options.local,
      git: this.options.git,
      model: promptModel(choice),
      instructions: this.options.instructions,
      skills: [],
      variables: this.options.variables,
    });
  }
}

function toToolResult(definition: SubagentDefinition, outcome: SubagentOutcome, id: string): ToolResult {
  const metadata = { subagent_id: id, subagent: definition.name, status: outcome.status, tool_turns: outcome.toolTurns, usage: outcome.usage };
  const report = outcome.report || "(the subagent ended without a report)";
  if (outcome.status === "failed") {
    const last = outcome.report ? `\nIts last message before failing:\n${outcome.report}` : "";
    return { output: `The subagent '${definition.name}' failed: ${outcome.error?.message ?? "unknown error"}.${last}`, isError: true, metadata };
  }
  if (outcome.status === "cancelled") return { output: `The subagent '${definition.name}' was cancelled.`, isError: true, metadata };
  const notes: Partial<Record<SubagentOutcome["stop"], string>> = {
    max_tool_turns: `[the subagent used all ${definition.maxToolTurns} of its tool round-trips; its report may be incomplete]`,
    max_tokens: "[the subagent's last answer hit the output limit and may be cut]",
    refusal: "[the subagent refused the task]",
  };
  const note = notes[outcome.stop];
  return { output: note ? `${report}\n\n${note}` : report, metadata };
}
