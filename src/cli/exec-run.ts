// `agent exec`: builds a session from the project's config, saves every event to the session store,
// runs one turn, and prints the answer (plain) or the events (--json).
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createSessionFromConfig, type CreatedSession } from "../agent/create-session.ts";
import { SessionSetupError } from "../agent/session-setup-error.ts";
import { commandLine } from "../agent/commands/custom/command-line.ts";
import { SessionCommandError } from "../agent/commands/types.ts";
import { DEMO_NOTICE } from "../agent/demo.ts";
import type { EngineEvent, TurnStopReason } from "../agent/events.ts";
import { dataRoot } from "../config/files.ts";
import { envChoiceLine } from "../providers/env-providers.ts";
import { modelPrice, sessionCost } from "../providers/cost.ts";
import type { Usage } from "../providers/events.ts";
import { initSessionDir, sessionsRoot, titleFrom, type SessionStore } from "../daemon/store/index.ts";
import { newId } from "../util/ids.ts";
import { CliError, EXIT, UsageError, type Io, type ParsedArgs } from "../util/cli-command.ts";
import { describeEvent } from "./exec-progress.ts";
import { runPermissions } from "./run-permission-flags.ts";
import { readPromptImages } from "./exec-images.ts";
import { checkAnswer, loadOutputSchema, retryPrompt, schemaInstruction } from "./exec-output-schema.ts";
import { sessionToContinue } from "./exec-resume.ts";
import { runLimits, usageSummary } from "./exec-limits.ts";

export const EXIT_STOPPED = 3;
export const EXIT_INTERRUPTED = 130;

const STOP_EXIT: Record<TurnStopReason, number> = {
  end_turn: EXIT.ok,
  exit_tool: EXIT.ok,
  error: EXIT.failure,
  max_tool_turns: EXIT_STOPPED,
  refusal: EXIT_STOPPED,
  max_tokens: EXIT_STOPPED,
  interrupted: EXIT_INTERRUPTED,
};

async function readPrompt(args: ParsedArgs, io: Io): Promise<string> {
  const given = args.positionals[0] ?? "";
  const text = given === "-" ? await io.stdin() : given;
  if (text.trim() === "") throw new UsageError(given === "-" ? "the prompt read from stdin is empty" : "the prompt is empty");
  return text;
}

const list = (value: ParsedArgs["flags"][string]): string[] => (Array.isArray(value) ? value : typeof value === "string" ? [value] : []);

export async function execRun(args: ParsedArgs, io: Io): Promise<number> {
  const deltas = args.flags["json-deltas"] === true;
  const json = args.flags.json === true || deltas;
  const prompt = await readPrompt(args, io);
  const limits = runLimits(args);
  const images = readPromptImages(list(args.flags.image), io.cwd);
  const output = typeof args.flags["output-schema"] === "string" ? loadOutputSchema(args.flags["output-schema"], io.cwd) : null;
  const outputLast = typeof args.flags["output-last"] === "string" ? resolve(io.cwd, args.flags["output-last"]) : null;
  const resumed = await sessionToContinue(args, io);
  const sessionId = resumed?.store.id ?? newId("ses", Date.now());
  const permissions = runPermissions(args);
  let created: CreatedSession;
  try {
    created = await createSessionFromConfig({
      // A continued session works in its own project, wherever exec was started.
      cwd: resumed?.project ?? io.cwd,
      env: io.env,
      sessionId,
      // The session dir exists from the start, so tool servers' stderr has a session.log to go to.
      sessionDir: join(sessionsRoot(dataRoot(io.env)), sessionId),
      initialEvents: resumed?.events,
      model: (args.flags.model as string | undefined) ?? null,
      facet: (args.flags.facet as string | undefined) ?? null,
      interactive: false,
      demo: args.flags.demo === true,
      configFile: args.flags.config as string | undefined,
      untrusted: args.flags["trust-project"] === true ? "keep" : "strip",
      trustHint: "(or pass --trust-project for this run)",
      sandbox: permissions.sandbox,
      runRules: permissions.runRules,
    });
  } catch (error) {
    resumed?.store.close();
    if (error instanceof SessionSetupError) throw new CliError(error.message);
    throw error;
  }
  const { session } = created;
  try {
    if (images.length > 0 && !created.model.supports_vision) throw new CliError(`--image: model ${created.model.key} does not take images (its supports_vision is false); choose one that does with --model`);
    limits.check(created.loaded, created.model.key, io.env);
  } catch (error) {
    resumed?.store.close();
    await session.close();
    throw error;
  }
  const rt = session.engineRuntime;
  if (limits.maxTurns !== null) rt.maxToolTurns = limits.maxTurns;
  if (output) rt.outputSchema = output.schema;
  // Without structured output in the provider's API the prompt states the schema.
  const instruction = output && created.provider.dialect === "a_messages" ? schemaInstruction(output.schema) : "";
  let store: SessionStore;
  if (resumed) {
    store = resumed.store;
    store.appendEvents([{ type: "session_state", state: "running", finalized: false }]);
    store.setState("running");
  } else store = initSessionDir(join(sessionsRoot(dataRoot(io.env)), sessionId), sessionId, { project: created.loaded.project.root, title: titleFrom(prompt) ?? undefined });
  const line = (value: unknown) => io.out(`${JSON.stringify(value)}\n`);
  const header = { type: "session", session_id: sessionId, model: created.model.key, facet: created.facet, project: created.loaded.project.root, demo: args.flags.demo === true, continued: resumed !== null, sandbox: created.sandbox.description, autonomy: created.sandbox.autonomy };
  if (json) line(header);
  else {
    if (args.flags.demo === true) io.err(`${DEMO_NOTICE}\n`);
    io.err(`${resumed ? "continuing session" : "session"} ${sessionId} · model ${created.model.key} · facet ${created.facet} · sandbox ${created.sandbox.description} · autonomy ${created.sandbox.autonomy}\n`);
  }
  const fromEnvironment = created.loaded.fromEnvironment;
  if (fromEnvironment?.found.length && args.flags.demo !== true) {
    const choice = envChoiceLine(fromEnvironment, created.model.key);
    if (json) line({ type: "notice", level: "info", message: choice });
    else io.err(`${choice}\n`);
  }
  for (const notice of created.notices) {
    if (json) line({ type: "notice", level: "warning", message: notice });
    else io.err(`warning: ${notice}\n`);
  }

  // Set by the subscriber: `as` keeps TypeScript from narrowing it to its first value.
  let stop = "error" as TurnStopReason;
  let failure = "";
  let answer = "";
  let lastMessageText = "";
  let checked: ReturnType<typeof checkAnswer> | null = null;
  const billed: { model: string; usage: Usage | null }[] = [];
  session.subscribe((e: EngineEvent) => {
    // Deltas are for live screens; the final state of every part is its own event, so it is what we keep.
    if (e.type !== "part_delta") store.appendEvents([e]);
    if (json) {
      if (e.type !== "part_delta" || deltas) line(e);
    } else {
      const text = describeEvent(e);
      if (text) io.err(`${text}\n`);
    }
    if (e.type === "assistant_message_started") {
      lastMessageText = "";
      billed.push({ model: e.model, usage: null });
    }
    if (e.type === "assistant_message_completed" && billed.length) {
      billed.at(-1)!.usage = e.usage;
      if (limits.overBudget(billed, created.loaded, io.env)) session.interrupt();
    }
    if (e.type === "part_completed" && e.part.type === "text") lastMessageText += (lastMessageText ? "\n" : "") + e.part.text;
    if (e.type === "assistant_message_completed") answer = lastMessageText || answer;
    if (e.type === "turn_completed") {
      stop = e.stop_reason;
      failure = e.error?.message ?? "";
    }
  });
  const onSigint = () => session.interrupt();
  process.on("SIGINT", onSigint);
  try {
    // One turn and done: its tools should all be there, so the servers get their startup time first.
    await created.live.mcp?.start();
    await created.sessionStart();
    // `agent exec "/review 123"` runs the session command (a custom command sends its prompt).
    const slash = commandLine(prompt, session.commands());
    if (slash) {
      try {
        io.err(`${(await session.command(slash.name, slash.args)).message}\n`);
        // A command that started no turn (/undo, /rewind, /compact) is done once it answered.
        if (!session.busy) stop = "end_turn";
      } catch (error) {
        if (error instanceof SessionCommandError) throw new CliError(`/${slash.name}: ${error.message}`);
        throw error;
      }
    } else session.submit({ text: prompt + instruction, ...(images.length > 0 ? { images } : {}) });
    await session.idle();
    if (output && stop === "end_turn" && !limits.stopped) {
      checked = checkAnswer(answer, output);
      // One more try, told what was wrong: a model usually fixes a stray sentence or a missing field.
      if (!checked.ok) {
        if (!json) io.err(`the answer does not fit ${output.file} (${checked.problem}); asking once more\n`);
        answer = "";
        session.submit({ text: retryPrompt(checked.problem, output.schema) });
        await session.idle();
        if (stop === "end_turn" && !limits.stopped) checked = checkAnswer(answer, output);
      }
    }
  } finally {
    process.off("SIGINT", onSigint);
    await session.close();
    // The run is over and no daemon serves it: the session is stopped (agent continue resumes it).
    store.appendEvents([{ type: "session_state", state: "stopped", finalized: true }]);
    store.setState("stopped", true);
    store.close();
  }
  // The run's price at the models.dev rates of the snapshot (null for unpriced models: local, custom).
  const cost = sessionCost(billed, (model) => modelPrice(created.loaded, model, io.env));
  if (limits.stopped) {
    stop = "interrupted";
    failure = limits.stopped;
  }
  // With --output-schema only the checked JSON is the answer.
  if (output && checked?.ok) answer = JSON.stringify(checked.value);
  else if (output && stop === "end_turn") failure = checked && !checked.ok ? `the answer does not fit ${output.file} after one retry: ${checked.problem}` : `no answer to check against ${output.file}`;
  if (outputLast && answer && (!output || checked?.ok)) {
    try {
      writeFileSync(outputLast, answer.endsWith("\n") ? answer : `${answer}\n`);
    } catch (error) {
      throw new CliError(`--output-last ${outputLast}: cannot write it (${(error as NodeJS.ErrnoException).code ?? String(error)}); the session ${sessionId} is saved`);
    }
  }
  if (json) {
    if (output && checked?.ok) line({ type: "structured_output", value: checked.value });
    line({ type: "cost", currency: "USD", ...cost });
  } else {
    if (answer && (!output || checked?.ok)) io.out(answer.endsWith("\n") ? answer : `${answer}\n`);
    io.err(`${usageSummary(billed, cost)}\n`);
  }
  const code = limits.stopped ? EXIT_STOPPED : output && stop === "end_turn" && !checked?.ok ? EXIT.failure : STOP_EXIT[stop];
  if (code !== EXIT.ok && !json) io.err(`${limits.stopped ? `stopped: ${failure}` : output && stop === "end_turn" ? `error: ${failure}` : stopMessage(stop, failure)}\nsession ${sessionId} saved; resume with: agent exec --session ${sessionId} PROMPT, or agent continue ${sessionId}\n`);
  if (code !== EXIT.ok && json && (limits.stopped || (output && stop === "end_turn"))) line({ type: "error", message: failure });
  return code;
}

function stopMessage(stop: TurnStopReason, failure: string): string {
  switch (stop) {
    case "error":
      return `error: ${failure || "the turn failed"}`;
    case "max_tool_turns":
      return `stopped: ${failure}`;
    case "refusal":
      return "stopped: the model refused to continue";
    case "max_tokens":
      return "stopped: the answer hit the model's output limit (max_output_tokens_per_turn)";
    case "interrupted":
      return "interrupted";
    default:
      return stop;
  }
}
