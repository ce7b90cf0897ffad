// The exported config schema is a real draft 2020-12 document: two independent validators (ajv and
// @hyperjump/json-schema) compile it, accept the full example config (which also loads cleanly through
// loadConfig) and reject the same bad documents the loader rejects.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import { hasSchema, registerSchema, unregisterSchema, validate as hyperValidate } from "@hyperjump/json-schema/draft-2020-12";
import { parse as parseYaml } from "yaml";
import { loadConfig } from "../../src/config/load.ts";
import { appConfigJsonSchema } from "../../src/config/schema.ts";
import { FULL_CONFIG_PATH, FULL_CONFIG_TEXT, type FullProject, makeFullProject } from "./fixtures/full-project.ts";

type Json = Record<string, any>;

const schema = appConfigJsonSchema() as Json;
const SCHEMA_ID = String(schema.$id);
const fullDoc = (): Json => parseYaml(FULL_CONFIG_TEXT) as Json;

let project: FullProject;

beforeAll(async () => {
  project = await makeFullProject();
  if (hasSchema(SCHEMA_ID)) unregisterSchema(SCHEMA_ID);
  registerSchema(structuredClone(schema) as any);
});

afterAll(() => {
  unregisterSchema(SCHEMA_ID);
  project.cleanup();
});

function compileAjv() {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  return ajv.compile(structuredClone(schema));
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The property that every object variant of a union pins to a constant (`type`, `transport`). */
function discriminatorOf(variants: Json[]): string | undefined {
  const objects = variants.filter((v) => isObject(v.properties));
  if (objects.length < 2) return undefined;
  return Object.keys(objects[0]!.properties).find((k) => objects.every((v) => v.properties[k]?.const !== undefined));
}

/** Every field the schema can hold, per variant of each discriminated union: `.providers.*.auth<type=static_key>.key`. */
function schemaFields(s: Json, path: string, out: Set<string>): Set<string> {
  if (Array.isArray(s.anyOf)) {
    const disc = discriminatorOf(s.anyOf);
    for (const v of s.anyOf as Json[]) {
      schemaFields(v, disc && v.properties?.[disc] ? `${path}<${disc}=${v.properties[disc].const}>` : path, out);
    }
  }
  for (const [key, inner] of Object.entries((s.properties ?? {}) as Record<string, Json>)) {
    out.add(`${path}.${key}`);
    schemaFields(inner, `${path}.${key}`, out);
  }
  for (const inner of Object.values((s.patternProperties ?? {}) as Record<string, Json>)) {
    out.add(`${path}.*`);
    schemaFields(inner, `${path}.*`, out);
  }
  if (isObject(s.items)) schemaFields(s.items, `${path}[]`, out);
  return out;
}

/** The fields of `schemaFields` that a document actually sets. */
function fieldsSet(s: Json, value: unknown, path: string, out: Set<string>): Set<string> {
  if (Array.isArray(s.anyOf)) {
    const disc = discriminatorOf(s.anyOf);
    if (disc && isObject(value)) {
      const variant = (s.anyOf as Json[]).find((v) => v.properties?.[disc]?.const === value[disc]);
      if (variant) fieldsSet(variant, value, `${path}<${disc}=${value[disc]}>`, out);
    } else {
      for (const v of s.anyOf as Json[]) fieldsSet(v, value, path, out);
    }
  }
  if (isObject(value) && isObject(s.properties)) {
    for (const [key, inner] of Object.entries(s.properties as Record<string, Json>)) {
      if (!(key in value)) continue;
      out.add(`${path}.${key}`);
      fieldsSet(inner, value[key], `${path}.${key}`, out);
    }
  }
  if (isObject(value) && isObject(s.patternProperties)) {
    const inner = Object.values(s.patternProperties as Record<string, Json>)[0]!;
    for (const v of Object.values(value)) {
      out.add(`${path}.*`);
      fieldsSet(inner, v, `${path}.*`, out);
    }
  }
  if (Array.isArray(value) && isObject(s.items)) for (const item of value) fieldsSet(s.items, item, `${path}[]`, out);
  return out;
}

describe("exported config schema", () => {
  test("declares draft 2020-12, the title 'app config' and an $id", () => {
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.title).toBe("app config");
    expect(SCHEMA_ID).toMatch(/^https:\/\//);
    // Plain JSON: what `agent print config-schema` writes is exactly this object.
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });

  test("the provider protocol enum has exactly the 17 spec values", () => {
    const provider = Object.values(schema.properties.providers.patternProperties as Record<string, Json>)[0]!;
    const variants = provider.properties.protocol.anyOf as Json[];
    const literals = variants.filter((v) => v.type !== "null").flatMap((v) => (v.anyOf ?? [v]) as Json[]);
    const values = literals.map((v) => v.const);
    expect(values.every((v) => typeof v === "string")).toBe(true);
    expect(new Set(values).size).toBe(17);
    expect(values).toHaveLength(17);
    for (const base of ["a_messages", "b_responses", "b_chat_completions", "c_responses", "test"]) expect(values).toContain(base);
    // The dialect suffix names the wire format; vendor prefixes are neutral letters.
    for (const v of values) expect(v).toMatch(/^(test|[a-z]_(messages|chat_completions|responses))$/);
  });

  test("compiles with ajv in strict mode", () => {
    expect(() => compileAjv()).not.toThrow();
  });

  test("the full example sets every field and every variant the schema has", () => {
    const all = schemaFields(schema, "", new Set());
    const set = fieldsSet(schema, fullDoc(), "", new Set());
    expect(all.size).toBeGreaterThan(150);
    expect([...all].filter((f) => !set.has(f))).toEqual([]);
  });

  test("the full example loads through loadConfig with zero errors", () => {
    const loaded = loadConfig({ cwd: project.dir, env: project.env, configFile: FULL_CONFIG_PATH });
    expect(loaded.problems.filter((p) => p.severity === "error")).toEqual([]);
    expect(loaded.ok).toBe(true);
    expect(loaded.trustStore?.certificates).toHaveLength(1);
    expect([...loaded.models.models.keys()]).toEqual(expect.arrayContaining(["my-large", "my-mini", "my-nano", "a/claude-sonnet-5"]));
    // `a-large` is the letter catalog's name, kept as an alias: its overlay lands on the real model.
    expect(loaded.models.models.get("a/claude-sonnet-5")?.tool_loading).toBe("native_deferred");
    expect(loaded.models.models.has("old-model")).toBe(false);
    expect(loaded.defaults.full).toMatchObject({ model: "my-large", effort: "high" });
  });

  test("ajv accepts the full example and the loaded, substituted config", () => {
    const check = compileAjv();
    expect(check(fullDoc()), JSON.stringify(check.errors)).toBe(true);
    const loaded = loadConfig({ cwd: project.dir, env: project.env, configFile: FULL_CONFIG_PATH });
    expect(check(structuredClone(loaded.config)), JSON.stringify(check.errors)).toBe(true);
  });

  test("@hyperjump/json-schema accepts the full example", async () => {
    const out = await hyperValidate(SCHEMA_ID, fullDoc() as any, "BASIC");
    expect(out.valid ? [] : out.errors).toEqual([]);
    expect(out.valid).toBe(true);
  });
});

interface BadCase {
  name: string;
  mutate(doc: Json): void;
  /** JSON pointer the validators should blame (a prefix of the error's instance path). */
  pointer: string;
  /** The loader's problem path for the same value. */
  loaderPath: string;
}

const BAD: BadCase[] = [
  { name: "version 256", mutate: (d) => void (d.version = 256), pointer: "/version", loaderPath: "version" },
  {
    name: "compaction_threshold 0",
    mutate: (d) => void (d.models["my-large"].compaction_threshold = 0),
    pointer: "/models/my-large/compaction_threshold",
    loaderPath: "models.my-large.compaction_threshold",
  },
  {
    name: "request option string of 513 characters",
    mutate: (d) => void (d.models["my-large"].request_option_defaults.service_tier = "x".repeat(513)),
    pointer: "/models/my-large/request_option_defaults/service_tier",
    loaderPath: "models.my-large.request_option_defaults.service_tier",
  },
  {
    name: "unknown permissions key",
    mutate: (d) => void (d.permissions.secret_patterns = ["*.key"]),
    pointer: "/permissions",
    loaderPath: "permissions.secret_patterns",
  },
  {
    name: "unknown provider protocol",
    mutate: (d) => void (d.providers["local-chat"].protocol = "z_chat_completions"),
    pointer: "/providers/local-chat/protocol",
    loaderPath: "providers.local-chat.protocol",
  },
  {
    name: "wrong provider kind discriminator",
    mutate: (d) => void (d.providers.msgs.kind = { type: "custom_a_compat" }),
    pointer: "/providers/msgs/kind",
    loaderPath: "providers.msgs.kind.type",
  },
  {
    name: "wrong mcp transport discriminator",
    mutate: (d) => void (d.mcp_servers.files.transport = "websocket"),
    pointer: "/mcp_servers/files",
    loaderPath: "mcp_servers.files.transport",
  },
  {
    name: "wrong reasoning discriminator",
    mutate: (d) => void (d.models["my-mini"].reasoning = { type: "effort", can_disable: false }),
    pointer: "/models/my-mini/reasoning",
    loaderPath: "models.my-mini.reasoning.effort_set",
  },
];

describe("both validators and the loader reject bad documents", () => {
  for (const bad of BAD) {
    test(bad.name, async () => {
      const doc = fullDoc();
      bad.mutate(doc);

      const check = compileAjv();
      expect(check(doc)).toBe(false);
      const blamed = (check.errors ?? []).map((e) => e.instancePath);
      expect(blamed.some((p) => p === bad.pointer || p.startsWith(`${bad.pointer}/`))).toBe(true);

      const out = await hyperValidate(SCHEMA_ID, doc as any, "BASIC");
      expect(out.valid).toBe(false);
      const hyperBlamed = ((!out.valid && out.errors) || []).map((e) => e.instanceLocation.replace(/^#/, ""));
      expect(hyperBlamed.some((p) => p === bad.pointer || p.startsWith(`${bad.pointer}/`))).toBe(true);

      const file = join(project.dir, `bad-${bad.name.replace(/\W+/g, "-")}.json`);
      writeFileSync(file, JSON.stringify(doc, null, 2));
      const loaded = loadConfig({ cwd: project.dir, env: project.env, configFile: file });
      expect(loaded.ok).toBe(false);
      const errors = loaded.problems.filter((p) => p.severity === "error");
      expect(errors.map((p) => p.path)).toContain(bad.loaderPath);
      const located = errors.find((p) => p.path === bad.loaderPath)!;
      expect(located.file).toBe(file);
      expect(located.line).toBeGreaterThan(1);
    });
  }
});
