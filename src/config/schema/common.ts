// Building blocks shared by the config schema files.
import { type TSchema, Type } from "@sinclair/typebox";

/** `T|null` of the spec. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const UINT32_MAX = 4_294_967_295;
/**
 * uint64 values are bounded by 2^53-1: JSON parsers (and JavaScript) cannot represent larger integers
 * exactly, so a larger bound would accept values that silently change when read.
 */
export const UINT64_MAX = Number.MAX_SAFE_INTEGER;

export const Uint32 = (options: { description?: string; default?: number } = {}) =>
  Type.Integer({ minimum: 0, maximum: UINT32_MAX, ...options });
export const Uint64 = (options: { description?: string; default?: number } = {}) =>
  Type.Integer({ minimum: 0, maximum: UINT64_MAX, ...options });

export const StringMap = (description?: string) =>
  Type.Record(Type.String(), Type.String(), description ? { description } : {});

export const StringList = (description?: string) => Type.Array(Type.String(), description ? { description } : {});
