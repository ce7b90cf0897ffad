// A tool server's request for input (MCP elicitation) as a form: the server's message, one row per field
// (text, number, yes/no, a choice, several choices) with the schema's defaults filled in, then Submit,
// Decline and Cancel. Up/Down (Tab) move between rows, typing fills a text or number field, Space toggles,
// Left/Right choose, Enter goes to the next row or presses the button; Esc cancels.
import { Box, Text, useInput } from "ink";
import { useRef, useState, type ReactNode } from "react";
import type { InterrogativeAnswer } from "../../src/agent/events.ts";
import { useTheme } from "../theme/theme.ts";

type Value = string | number | boolean | string[];

export interface FormField {
  key: string;
  title: string;
  description?: string;
  kind: "text" | "number" | "integer" | "boolean" | "choice" | "choices";
  options: { value: string; label: string }[];
  required: boolean;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
}

interface Schema {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  enumNames?: unknown[];
  oneOf?: { const?: unknown; title?: string }[];
  anyOf?: { const?: unknown; title?: string }[];
  items?: Schema;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
}

function optionsOf(s: Schema | undefined): { value: string; label: string }[] {
  if (!s) return [];
  if (Array.isArray(s.enum)) return s.enum.map((v, i) => ({ value: String(v), label: String(s.enumNames?.[i] ?? v) }));
  const list = s.oneOf ?? s.anyOf;
  return (list ?? []).filter((o) => o.const !== undefined).map((o) => ({ value: String(o.const), label: o.title ?? String(o.const) }));
}

/** The form's fields from the request's flat schema, in the schema's order. */
export function formFields(schema: Record<string, unknown>): FormField[] {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(properties).map(([key, s]) => {
    const options = s.type === "array" ? optionsOf(s.items) : optionsOf(s);
    const kind: FormField["kind"] = s.type === "array" ? "choices" : options.length ? "choice" : s.type === "boolean" ? "boolean" : s.type === "integer" ? "integer" : s.type === "number" ? "number" : "text";
    const field: FormField = { key, title: s.title ?? key, kind, options, required: required.has(key) };
    if (s.description) field.description = s.description;
    for (const k of ["minimum", "maximum", "minItems", "maxItems"] as const) if (typeof s[k] === "number") field[k] = s[k];
    return field;
  });
}

/** The editable value of each field: defaults filled in (text and numbers as typed text). */
export function initialValues(schema: Record<string, unknown>, fields: FormField[]): Record<string, Value> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const values: Record<string, Value> = {};
  for (const f of fields) {
    const d = properties[f.key]?.default;
    if (f.kind === "boolean") values[f.key] = d === true;
    else if (f.kind === "choices") values[f.key] = Array.isArray(d) ? d.map(String) : [];
    else if (f.kind === "choice") values[f.key] = d !== undefined ? String(d) : f.required ? (f.options[0]?.value ?? "") : "";
    else values[f.key] = d !== undefined && d !== null ? String(d) : "";
  }
  return values;
}

/** The answer's content, or the first problem (which field, what is wrong). */
export function formContent(fields: FormField[], values: Record<string, Value>): { content: Record<string, Value> } | { error: string; field: number } {
  const content: Record<string, Value> = {};
  for (const [i, f] of fields.entries()) {
    const v = values[f.key];
    const fail = (why: string) => ({ error: `${f.title}: ${why}`, field: i });
    if (f.kind === "boolean") content[f.key] = v === true;
    else if (f.kind === "choices") {
      const picked = v as string[];
      if (f.required && !picked.length) return fail("pick at least one");
      if (f.minItems !== undefined && picked.length && picked.length < f.minItems) return fail(`pick at least ${f.minItems}`);
      if (f.maxItems !== undefined && picked.length > f.maxItems) return fail(`pick at most ${f.maxItems}`);
      if (picked.length) content[f.key] = picked;
    } else {
      const text = String(v ?? "").trim();
      if (!text) {
        if (f.required) return fail("required");
        continue;
      }
      if (f.kind === "number" || f.kind === "integer") {
        const n = Number(text);
        if (!Number.isFinite(n)) return fail(`'${text}' is not a number`);
        if (f.kind === "integer" && !Number.isInteger(n)) return fail(`'${text}' is not a whole number`);
        if (f.minimum !== undefined && n < f.minimum) return fail(`at least ${f.minimum}`);
        if (f.maximum !== undefined && n > f.maximum) return fail(`at most ${f.maximum}`);
        content[f.key] = n;
      } else content[f.key] = text;
    }
  }
  return { content };
}

const BUTTONS = ["Submit", "Decline", "Cancel"] as const;

export interface ElicitationFormProps {
  server: string;
  message: string;
  schema: Record<string, unknown>;
  onAnswer(answer: InterrogativeAnswer): void;
  active: boolean;
  /** An error from the last attempt to answer. */
  error: string | null;
  /** How many more questions wait behind this one. */
  more?: number;
}

interface FormState {
  row: number;
  /** The option under the cursor in a several-choices field. */
  option: number;
  values: Record<string, Value>;
  problem: string | null;
}

export function ElicitationForm({ server, message, schema, onAnswer, active, error, more = 0 }: ElicitationFormProps): ReactNode {
  const [fields] = useState(() => formFields(schema));
  // Several keys can arrive in one read: the handler reads and writes a ref, then asks for a render.
  const state = useRef<FormState>({ row: 0, option: 0, values: initialValues(schema, fields), problem: null });
  const [, redraw] = useState(0);
  const set = (change: Partial<FormState>) => ((state.current = { ...state.current, ...change }), redraw((n) => n + 1));
  const rows = fields.length + BUTTONS.length;

  useInput(
    (input, key) => {
      const { row, option, values } = state.current;
      const field = fields[row];
      const setValue = (v: Value) => set({ values: { ...values, [field!.key]: v }, problem: null });
      if (key.escape) return onAnswer({ decision: "cancel" });
      if (key.upArrow || (key.tab && key.shift)) return set({ row: (row + rows - 1) % rows, option: 0 });
      if (key.downArrow || key.tab) return set({ row: (row + 1) % rows, option: 0 });
      if (key.return) {
        if (field) return set({ row: row + 1, option: 0 });
        const button = BUTTONS[row - fields.length]!;
        if (button === "Decline") return onAnswer({ decision: "decline" });
        if (button === "Cancel") return onAnswer({ decision: "cancel" });
        const result = formContent(fields, values);
        if ("error" in result) return set({ problem: result.error, row: result.field });
        return onAnswer({ decision: "accept", content: result.content });
      }
      if (!field) {
        if (key.leftArrow) set({ row: Math.max(fields.length, row - 1) });
        else if (key.rightArrow) set({ row: Math.min(rows - 1, row + 1) });
        return;
      }
      if (field.kind === "boolean") {
        if (input === " " || key.leftArrow || key.rightArrow) setValue(!values[field.key]);
      } else if (field.kind === "choice") {
        const choices = field.required ? field.options.map((o) => o.value) : ["", ...field.options.map((o) => o.value)];
        const at = choices.indexOf(String(values[field.key]));
        if (key.leftArrow) setValue(choices[(at + choices.length - 1) % choices.length]!);
        else if (key.rightArrow || input === " ") setValue(choices[(at + 1) % choices.length]!);
      } else if (field.kind === "choices") {
        const n = field.options.length;
        if (key.leftArrow) set({ option: (option + n - 1) % n });
        else if (key.rightArrow) set({ option: (option + 1) % n });
        else if (input === " " && n) {
          const value = field.options[option]!.value;
          const picked = values[field.key] as string[];
          setValue(picked.includes(value) ? picked.filter((v) => v !== value) : field.options.map((o) => o.value).filter((v) => v === value || picked.includes(v)));
        }
      } else if (key.backspace || key.delete) setValue(String(values[field.key]).slice(0, -1));
      else if (input && !key.ctrl && !key.meta) setValue(String(values[field.key]) + input.replace(/[\r\n]/g, ""));
    },
    { isActive: active },
  );

  const c = useTheme().colors;
  const { row, option, values, problem } = state.current;
  const render = (f: FormField, i: number): ReactNode => {
    const v = values[f.key];
    const here = i === row;
    let shown: string;
    if (f.kind === "boolean") shown = v ? "[x] yes" : "[ ] no";
    else if (f.kind === "choice") shown = `‹ ${f.options.find((o) => o.value === v)?.label ?? "(none)"} ›`;
    else if (f.kind === "choices") shown = f.options.map((o, k) => `${here && k === option ? "›" : " "}[${(v as string[]).includes(o.value) ? "x" : " "}] ${o.label}`).join(" ");
    else shown = String(v);
    return (
      <Box key={f.key} flexDirection="column">
        <Text color={here ? c.selection : undefined} wrap="truncate-end">
          {`${here ? "❯" : " "} ${f.title}${f.required ? " *" : ""}: `}
          <Text bold>{shown}</Text>
          {here && (f.kind === "text" || f.kind === "number" || f.kind === "integer") ? <Text inverse> </Text> : null}
        </Text>
        {here && f.description ? <Text dimColor wrap="truncate-end">{`    ${f.description}`}</Text> : null}
      </Box>
    );
  };
  return (
    <Box borderStyle="round" borderColor={c.warning} paddingX={1} flexDirection="column">
      <Text>
        <Text bold color={c.warning}>{`Tool server ${server} asks: `}</Text>
        <Text>{message}</Text>
      </Text>
      {fields.map(render)}
      <Text>
        {BUTTONS.map((b, k) => (
          <Text key={b} color={row === fields.length + k ? c.selection : undefined} bold={row === fields.length + k}>{`${row === fields.length + k ? "❯" : " "} ${b}  `}</Text>
        ))}
      </Text>
      <Text dimColor>{"↑↓ move · type to fill · Space toggles · ←→ choose · Enter next / press · Esc cancels"}</Text>
      {more > 0 ? <Text dimColor>{`${more} more question${more === 1 ? "" : "s"} waiting`}</Text> : null}
      {problem ? <Text color={c.error}>{problem}</Text> : null}
      {error ? <Text color={c.error}>{error}</Text> : null}
    </Box>
  );
}
