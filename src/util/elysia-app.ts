// Every Elysia instance of src/ (the daemon's app, the gateway's app and its route groups) is made here;
// test/architecture/shared-schemas.test.ts checks that no other file calls `new Elysia(`.
//
// Route schemas are copied. Elysia 1.4 writes `additionalProperties: false` onto the root object of each
// body and response schema the first time it compiles a route (getSchemaValidator, dist/schema.mjs), with
// `normalize` on or off. The schemas of src/protocol are shared with the clients, the fleet observer and
// ajv: in a process that had served a route, their checks refused the extra fields a newer peer may send.
// Each route now hands Elysia its own deep copy, with that `additionalProperties: false` already written
// on the copy's root: the routes validate exactly as before (an unknown field at the root of a body or a
// response is refused; nested objects keep the schema's own rule), and the OpenAPI document says so
// whether or not a route has run yet (it showed the write only for the routes already served).
//
// normalize is off. With it on, Elysia strips unknown fields from bodies, queries and responses (nested
// ones included) before checking them. A route group takes the setting of the app it is mounted in (Elysia
// re-adds the group's routes to that app), and both apps have always run with it off; here the route groups
// say so too, so a group served on its own (a test) validates as it does mounted.
import { CloneType, Kind, type TSchema } from "@sinclair/typebox";
import { Elysia, type ElysiaConfig } from "elysia";

/** The route options that hold schemas, as Elysia reads them when it compiles the route. */
const SCHEMA_OPTIONS = ["body", "headers", "params", "query", "cookie", "response"] as const;

type Add = (method: string, path: string, handle: unknown, hook?: Record<string, unknown>, ...rest: unknown[]) => unknown;

/** `new Elysia(config)` with normalize off whose routes own their schemas. */
export function elysiaApp<const BasePath extends string = "">(config: Omit<ElysiaConfig<BasePath>, "normalize"> = {}) {
  const app = new Elysia<BasePath>({ ...config, normalize: false });
  // Every route goes through add(): .get/.post/..., and the routes of a group re-added by .use().
  const internals = app as unknown as { add?: Add };
  const add = internals.add;
  if (typeof add !== "function") throw new Error("src/util/elysia-app.ts: Elysia has no add() method any more (was elysia upgraded?); route schemas can no longer be copied before Elysia writes to them");
  internals.add = function (this: unknown, method, path, handle, hook, ...rest) {
    return add.call(this, method, path, handle, hook && withOwnSchemas(hook), ...rest);
  };
  return app;
}

const isSchema = (value: unknown): value is TSchema => typeof value === "object" && value !== null && Kind in value;

/** A deep copy; for a body or a response, with Elysia's root `additionalProperties: false` written now. */
function own(schema: TSchema, key: (typeof SCHEMA_OPTIONS)[number]): TSchema {
  const copy = CloneType(schema);
  // Elysia's own rule (getSchemaValidator): an object root with no additionalProperties gets `false`.
  // Headers and cookies get `true` there, and queries and params are coerced into new objects first.
  if ((key === "body" || key === "response") && copy.type === "object" && !("additionalProperties" in copy)) copy.additionalProperties = false;
  return copy;
}

function withOwnSchemas(hook: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...hook };
  for (const key of SCHEMA_OPTIONS) {
    const value = copy[key];
    if (isSchema(value)) copy[key] = own(value, key);
    else if (key === "response" && typeof value === "object" && value !== null) {
      // A response per status: { 200: Schema, 404: Schema }.
      copy[key] = Object.fromEntries(Object.entries(value).map(([status, schema]) => [status, isSchema(schema) ? own(schema, key) : schema]));
    }
  }
  return copy;
}
