// zod is loaded only by graphs that use it. A node's schemas are zod schemas its author built, so describing them
// needs no import of our own: a zod 4 schema converts itself (`schema.toJSONSchema`, the same conversion as
// `z.toJSONSchema`). Plain graphs then never load zod's ~95 modules when @graph/core is imported: after Effect,
// the largest part of a fresh process's import.
//
// What still needs zod itself (wrapping a schema in `z.array` for strictTypes, or a zod 4 release whose schemas
// lack the method) loads it on first use, synchronously because graph validation runs in constructors: the
// CommonJS build through createRequire. It reads schemas structurally and zod keeps its metadata registry on
// globalThis, so its output equals that of the ES module build the schemas came from (test/zodLazy.test.ts).
import { createRequire } from "node:module";
import type * as z from "zod";

/** The options every conversion in core uses. */
interface JsonSchemaParams {
  readonly io: "input" | "output";
  readonly unrepresentable: "any";
}

let loaded: typeof z | undefined;

/** zod, loaded on first call (never at import). */
export function zodModule(): typeof z {
  loaded ??= createRequire(import.meta.url)("zod") as typeof z;
  return loaded;
}

/** `z.toJSONSchema(schema, params)` without loading zod when the schema can convert itself. */
export function toJsonSchema(schema: z.ZodType, params: JsonSchemaParams): { [key: string]: unknown } {
  const own = (schema as { toJSONSchema?: (params: JsonSchemaParams) => unknown }).toJSONSchema;
  const json = typeof own === "function" ? own.call(schema, params) : zodModule().toJSONSchema(schema, params);
  return json as { [key: string]: unknown };
}
