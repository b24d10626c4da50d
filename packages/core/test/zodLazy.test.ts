// Core describes zod schemas without importing zod (src/internal/zod.ts): each schema converts itself, and what
// needs zod itself loads its CommonJS build on first use. Both must describe a schema exactly as `z.toJSONSchema`
// of the ES module build does, or graph hashes (and strictTypes verdicts) would change with the path taken.
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { toJsonSchema, zodModule } from "../src/internal/zod.js";

const zoo: Record<string, z.ZodType> = {
  number: z.number(),
  described: z.string().min(2).describe("a name"),
  object: z
    .object({ a: z.number().default(3), b: z.string().optional(), c: z.array(z.boolean()) })
    .meta({ title: "T" }),
  union: z.union([z.literal("a"), z.number().int()]),
  enum: z.enum(["x", "y"]),
  date: z.date(),
  transform: z.string().transform((s) => s.length),
  pipe: z.string().pipe(z.coerce.number()),
  record: z.record(z.string(), z.number()),
  tuple: z.tuple([z.string(), z.number()]),
  nullable: z.number().nullable(),
  lazy: z.lazy(() => z.string()),
  strictObject: z.strictObject({ a: z.string() }),
  intersection: z.intersection(z.object({ a: z.string() }), z.object({ b: z.number() })),
  email: z.email(),
};
const ios = ["input", "output"] as const;

describe("zod without a zod import", () => {
  it("toJsonSchema equals z.toJSONSchema for every schema of the zoo, input and output", () => {
    const differs = Object.entries(zoo).flatMap(([name, schema]) =>
      ios.flatMap((io) => {
        const params = { io, unrepresentable: "any" } as const;
        return isDeepStrictEqual(toJsonSchema(schema, params), z.toJSONSchema(schema, params)) ? [] : [`${name}/${io}`];
      }),
    );
    expect(differs).toEqual([]);
  });

  it("the lazily loaded zod converts and wraps ES-module schemas exactly as the ES module build does", () => {
    const lazy = zodModule();
    expect(lazy).toBe(zodModule());
    const differs = Object.entries(zoo).flatMap(([name, schema]) =>
      ios.flatMap((io) => {
        const params = { io, unrepresentable: "any" } as const;
        const same =
          isDeepStrictEqual(lazy.toJSONSchema(schema, params), z.toJSONSchema(schema, params)) &&
          isDeepStrictEqual(lazy.toJSONSchema(lazy.array(schema), params), z.toJSONSchema(z.array(schema), params));
        return same ? [] : [`${name}/${io}`];
      }),
    );
    expect(differs).toEqual([]);
  });
});
