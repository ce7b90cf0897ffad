// Checks a value against a TypeBox schema and reports every problem with its key path and what is
// allowed. Written instead of TypeBox's Value.Errors because discriminated unions deserve precise
// messages ("unknown type 'x' (allowed: ...)") rather than "expected union value".
import { Kind, type TSchema } from "@sinclair/typebox";
import { didYouMean } from "../util/did-you-mean.ts";
import { isMap } from "./doc.ts";
import type { KeyPath, ProblemList } from "./problems.ts";

type Schema = TSchema & Record<string, any>;

const kindOf = (s: Schema): string => s[Kind] as string;


function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (v instanceof Date) return "a date";
  if (typeof v === "string") return v.length > 40 ? `a string of ${v.length} characters` : `"${v}"`;
  if (typeof v === "object") return "an object";
  return `${typeof v} ${String(v)}`;
}

export function describeSchema(s: Schema): string {
  switch (kindOf(s)) {
    case "String": return "string";
    case "Integer": return s.maximum !== undefined ? `integer ${s.minimum ?? ""}..${s.maximum}` : "integer";
    case "Number": return "number";
    case "Boolean": return "boolean";
    case "Null": return "null";
    case "Literal": return JSON.stringify(s.const);
    case "Array": return "list";
    case "Object": case "Record": return "object";
    case "Union": return (s.anyOf as Schema[]).map(describeSchema).join(" or ");
    default: return "any value";
  }
}

/** The property name shared by every variant as a literal, e.g. `type` or `transport`. */
function discriminator(variants: Schema[]): string | undefined {
  if (!variants.every((v) => kindOf(v) === "Object")) return undefined;
  const first = variants[0]!;
  return Object.keys(first.properties).find((key) =>
    variants.every((v) => v.properties[key] && kindOf(v.properties[key]) === "Literal"),
  );
}

function checkUnion(schema: Schema, value: unknown, path: KeyPath, out: ProblemList): void {
  const variants = schema.anyOf as Schema[];
  if (value === null && variants.some((v) => kindOf(v) === "Null")) return;
  const nonNull = variants.filter((v) => kindOf(v) !== "Null");
  if (nonNull.every((v) => kindOf(v) === "Literal")) {
    const allowed = nonNull.map((v) => String(v.const));
    if (!nonNull.some((v) => v.const === value)) {
      const hint = typeof value === "string" ? didYouMean(value, allowed, "'") : "";
      out.error(path, `invalid value ${describeValue(value)}${hint}`, { allowed: allowed.join(", ") });
    }
    return;
  }
  const key = discriminator(nonNull);
  if (key && isMap(value)) {
    const tag = value[key];
    const allowed = nonNull.map((v) => String(v.properties[key].const));
    const variant = nonNull.find((v) => v.properties[key].const === tag);
    if (tag === undefined) {
      out.error([...path, key], `missing required field '${key}'`, { allowed: allowed.join(", ") });
    } else if (!variant) {
      const hint = typeof tag === "string" ? didYouMean(tag, allowed, "'") : "";
      out.error([...path, key], `unknown ${key} ${describeValue(tag)}${hint}`, { allowed: allowed.join(", ") });
    } else {
      checkValue(variant, value, path, out);
    }
    return;
  }
  if (nonNull.length === 1) {
    checkValue(nonNull[0]!, value, path, out);
    return;
  }
  // Plain unions (e.g. boolean or string): the first variant whose basic type fits decides the message.
  const fitting = nonNull.find((v) => basicTypeFits(v, value));
  if (fitting) checkValue(fitting, value, path, out);
  else out.error(path, `expected ${describeSchema(schema)}, found ${describeValue(value)}`);
}

function basicTypeFits(s: Schema, v: unknown): boolean {
  switch (kindOf(s)) {
    case "String": return typeof v === "string";
    case "Integer": case "Number": return typeof v === "number";
    case "Boolean": return typeof v === "boolean";
    case "Array": return Array.isArray(v);
    case "Object": case "Record": return isMap(v);
    case "Literal": return v === s.const;
    default: return true;
  }
}

function checkObject(schema: Schema, value: unknown, path: KeyPath, out: ProblemList): void {
  if (!isMap(value)) {
    out.error(path, `expected an object, found ${describeValue(value)}`);
    return;
  }
  const props = schema.properties as Record<string, Schema>;
  for (const key of (schema.required as string[] | undefined) ?? []) {
    if (value[key] === undefined) out.error([...path, key], `missing required field '${key}'`, { allowed: describeSchema(props[key]!) });
  }
  for (const [key, inner] of Object.entries(value)) {
    const prop = Object.hasOwn(props, key) ? props[key] : undefined;
    if (prop) {
      if (inner !== undefined) checkValue(prop, inner, [...path, key], out);
      continue;
    }
    const hint = didYouMean(key, Object.keys(props), "'");
    if (schema.additionalProperties === false) {
      out.error([...path, key], `unknown key '${key}'${hint}; no other keys are allowed here`, { allowed: Object.keys(props).join(", ") });
    } else {
      out.warn([...path, key], `unknown key '${key}' is ignored${hint}`);
    }
  }
}

export function checkValue(schema: Schema, value: unknown, path: KeyPath, out: ProblemList): void {
  switch (kindOf(schema)) {
    case "Union": return checkUnion(schema, value, path, out);
    case "Object": return checkObject(schema, value, path, out);
    case "Record": {
      if (!isMap(value)) return out.error(path, `expected an object (a map of names), found ${describeValue(value)}`);
      const inner = Object.values(schema.patternProperties as Record<string, Schema>)[0]!;
      for (const [key, v] of Object.entries(value)) checkValue(inner, v, [...path, key], out);
      return;
    }
    case "Array": {
      if (!Array.isArray(value)) return out.error(path, `expected a list, found ${describeValue(value)}`);
      // The exported schema's list bounds hold here too, so the loader and a JSON Schema validator agree.
      if (typeof schema.minItems === "number" && value.length < schema.minItems) {
        out.error(path, value.length === 0 ? "must not be an empty list" : `has ${value.length} items`, { allowed: `at least ${schema.minItems}` });
      }
      if (typeof schema.maxItems === "number" && value.length > schema.maxItems) out.error(path, `has ${value.length} items`, { allowed: `at most ${schema.maxItems}` });
      if (schema.uniqueItems === true && new Set(value.map((v) => JSON.stringify(v))).size !== value.length) out.error(path, "lists an item twice");
      value.forEach((item, i) => checkValue(schema.items as Schema, item, [...path, i], out));
      return;
    }
    case "String": {
      if (typeof value !== "string") return out.error(path, `expected a string, found ${describeValue(value)}`);
      if (schema.minLength !== undefined && value.length < schema.minLength) out.error(path, "must not be empty");
      if (schema.maxLength !== undefined && value.length > schema.maxLength) {
        out.error(path, `is ${value.length} characters long`, { allowed: `at most ${schema.maxLength}` });
      }
      if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(value)) {
        out.error(path, `invalid value ${describeValue(value)}`, { allowed: schema.description ?? `pattern ${schema.pattern}` });
      }
      return;
    }
    case "Integer":
    case "Number": {
      const integer = kindOf(schema) === "Integer";
      if (typeof value !== "number" || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
        return out.error(path, `expected ${integer ? "an integer" : "a number"}, found ${describeValue(value)}`);
      }
      const low = schema.minimum ?? schema.exclusiveMinimum;
      const tooLow = schema.minimum !== undefined ? value < schema.minimum : schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum;
      const tooHigh = schema.maximum !== undefined && value > schema.maximum;
      if (tooLow || tooHigh) {
        const lowText = schema.exclusiveMinimum !== undefined ? `greater than ${low}` : `at least ${low}`;
        out.error(path, `${value} is out of range`, {
          allowed: [low !== undefined ? lowText : "", schema.maximum !== undefined ? `at most ${schema.maximum}` : ""].filter(Boolean).join(" and "),
        });
      }
      return;
    }
    case "Boolean":
      if (typeof value !== "boolean") out.error(path, `expected true or false, found ${describeValue(value)}`);
      return;
    case "Null":
      if (value !== null) out.error(path, `expected null, found ${describeValue(value)}`);
      return;
    case "Literal":
      if (value !== schema.const) out.error(path, `invalid value ${describeValue(value)}`, { allowed: String(schema.const) });
      return;
    default:
      return;
  }
}
