// `agent exec --output-schema FILE`: the final answer is JSON valid against a JSON Schema. Where the
// provider's API has structured output it is asked for (providers/structured-output.ts); the Messages
// API has none, so the prompt states the schema.
// Either way the answer is validated here (the MCP SDK's ajv validator, which the tool servers' input
// checks use too) and, when it fails, the model is told what is wrong and asked once more.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { JsonSchemaType, JsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { CliError } from "../util/cli-command.ts";

export interface OutputSchema {
  file: string;
  schema: Record<string, unknown>;
  validate: JsonSchemaValidator<unknown>;
}

export function loadOutputSchema(file: string, cwd: string): OutputSchema {
  let text: string;
  try {
    text = readFileSync(resolve(cwd, file), "utf8");
  } catch (error) {
    throw new CliError(`--output-schema ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new CliError(`--output-schema ${file}: not JSON (${(error as Error).message})`);
  }
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) throw new CliError(`--output-schema ${file}: a JSON Schema is a JSON object`);
  let validate: JsonSchemaValidator<unknown>;
  try {
    validate = new AjvJsonSchemaValidator().getValidator(schema as JsonSchemaType);
  } catch (error) {
    throw new CliError(`--output-schema ${file}: not a usable JSON Schema: ${(error as Error).message}`);
  }
  return { file, schema: schema as Record<string, unknown>, validate };
}

/** Added to the prompt where the API cannot be asked for the format. */
export function schemaInstruction(schema: Record<string, unknown>): string {
  return `\n\nEnd with a final answer that is only a JSON value valid against this JSON Schema: no prose, no code fence.\n${JSON.stringify(schema)}`;
}

export type Checked = { ok: true; value: unknown } | { ok: false; problem: string };

/** The answer as JSON valid against the schema (a whole-answer code fence is tolerated), or what is wrong. */
export function checkAnswer(answer: string, output: OutputSchema): Checked {
  const fenced = /^```[a-zA-Z]*\n([\s\S]*?)\n```$/.exec(answer.trim());
  let value: unknown;
  try {
    value = JSON.parse(fenced ? fenced[1]! : answer);
  } catch (error) {
    return { ok: false, problem: answer.trim() === "" ? "the answer is empty" : `the answer is not JSON (${(error as Error).message})` };
  }
  const result = output.validate(value);
  if (!result.valid) return { ok: false, problem: `the answer does not match the schema: ${result.errorMessage.replace(/(^|, )data\//g, "$1/").replace(/(^|, )data /g, "$1the answer ")}` };
  return { ok: true, value };
}

/** The one follow-up prompt after an answer that failed the check. */
export function retryPrompt(problem: string, schema: Record<string, unknown>): string {
  return `Your final answer cannot be used: ${problem}. Answer again with only a JSON value valid against this JSON Schema (no prose, no code fence):\n${JSON.stringify(schema)}`;
}
