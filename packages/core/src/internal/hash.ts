import { createHash } from "node:crypto";
import type * as z from "zod";
import { toJsonSchema } from "./zod.js";

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Stable JSON for hashing configuration: sorted keys, functions by source, symbols by description. */
export function stableStringify(value: unknown): string {
  // Objects on the current path only: a value shared by two branches is not a cycle and must hash in full.
  const seen = new WeakSet<object>();
  const walk = (v: unknown): unknown => {
    if (typeof v === "function") return `fn:${Function.prototype.toString.call(v)}`;
    if (typeof v === "symbol") return `sym:${v.description ?? ""}`;
    if (typeof v === "bigint") return `big:${v}`;
    if (v === undefined) return "undef";
    if (typeof v !== "object" || v === null) return v;
    if (seen.has(v)) return "[circular]";
    seen.add(v);
    let out: unknown;
    if (Array.isArray(v)) out = v.map(walk);
    else if (v instanceof Date) out = `date:${Number.isNaN(v.getTime()) ? "invalid" : v.toISOString()}`;
    else if (v instanceof Map) out = { $map: [...v.entries()].map(([k, x]) => [walk(k), walk(x)]) };
    else if (v instanceof Set) out = { $set: [...v].map(walk) };
    else {
      const record: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) record[k] = walk((v as Record<string, unknown>)[k]);
      out = record;
    }
    seen.delete(v);
    return out;
  };
  return JSON.stringify(walk(value));
}

/** A stable description of a zod schema for hashing: its JSON Schema (type, defaults, literals, …). */
function schemaFingerprint(schema: z.ZodType): unknown {
  try {
    return toJsonSchema(schema, { unrepresentable: "any", io: "input" });
  } catch {
    return { zodType: (schema as { def?: { type?: unknown } }).def?.type ?? "unknown" };
  }
}

/** {@link schemaFingerprint} for each schema of a record (undefined stays undefined). */
export function schemaFingerprints(schemas: Readonly<Record<string, z.ZodType>> | undefined): unknown {
  if (schemas === undefined) return undefined;
  return Object.fromEntries(Object.entries(schemas).map(([k, s]) => [k, schemaFingerprint(s)]));
}
