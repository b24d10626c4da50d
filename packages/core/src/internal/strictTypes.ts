import type * as z from "zod";
import { GraphConfigError } from "../errors.js";
import type { AnyNode, Graph } from "../Graph.js";
import { assertNever } from "./brand.js";
import { toJsonSchema, zodModule } from "./zod.js";

type JsonSchema = { [key: string]: unknown };

function outputSchemaOf(n: AnyNode, output: string): z.ZodType | undefined {
  switch (n.kind) {
    case "function":
      return n.outputSchema(output);
    case "graph": {
      const inner = n.innerOutput(output);
      const producer = inner === undefined ? undefined : n.graph.analysis.producers.get(inner)?.[0];
      const schema =
        producer === undefined || inner === undefined ? undefined : outputSchemaOf(n.graph.nodes.get(producer)!, inner);
      return schema === undefined || n.mapOverConfig === undefined ? schema : zodModule().array(schema);
    }
    case "gate":
    case "interrupt":
      return undefined;
    default:
      return assertNever(n, "node kind", (n as AnyNode).kind);
  }
}

function inputSchemaOf(n: AnyNode, input: string): z.ZodType | undefined {
  switch (n.kind) {
    case "function":
      return n.inputSchema(input);
    case "graph": {
      const inner = n.innerInput(input);
      if (inner === undefined) return undefined;
      // The inner graph's first reader of the value (node-list order), from its index rather than a scan per edge.
      const first = n.graph.analysis.consumers.get(inner)?.[0];
      const consumer = first === undefined ? undefined : n.graph.nodes.get(first);
      const schema = consumer === undefined ? undefined : inputSchemaOf(consumer, inner);
      return schema === undefined || !n.mapOverConfig?.params.includes(input) ? schema : zodModule().array(schema);
    }
    case "gate":
    case "interrupt":
      return undefined;
    default:
      return assertNever(n, "node kind", (n as AnyNode).kind);
  }
}

function toJson(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  return toJsonSchema(schema, { io, unrepresentable: "any" });
}

const typesOf = (s: JsonSchema): string[] | undefined =>
  s.type === undefined ? undefined : Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];

function variants(s: JsonSchema): JsonSchema[] | undefined {
  const list = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (list !== undefined) return list;
  const types = typesOf(s);
  if (types !== undefined && types.length > 1) return types.map((t) => ({ ...s, type: t }));
  return undefined;
}

function literals(s: JsonSchema): unknown[] | undefined {
  if (Object.hasOwn(s, "const")) return [s.const];
  if (Array.isArray(s.enum)) return s.enum as unknown[];
  return undefined;
}

const jsonType = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "array" : Number.isInteger(v) ? "integer" : typeof v;

/** Is every value the producer schema allows also allowed by the consumer schema? (JSON-Schema level, conservative.) */
function isAssignable(producer: JsonSchema, consumer: JsonSchema): boolean {
  const consumerKeys = Object.keys(consumer).filter((k) => k !== "$schema" && k !== "description" && k !== "default");
  if (consumerKeys.length === 0) return true; // consumer accepts anything
  const pv = variants(producer);
  if (pv !== undefined) return pv.every((p) => isAssignable(p, consumer));
  const cv = variants(consumer);
  if (cv !== undefined) return cv.some((c) => isAssignable(producer, c));
  const pl = literals(producer);
  const cl = literals(consumer);
  if (cl !== undefined) return pl?.every((v) => cl.some((c) => JSON.stringify(c) === JSON.stringify(v))) ?? false;
  const ct = typesOf(consumer);
  const pt = pl !== undefined ? [...new Set(pl.map(jsonType))] : typesOf(producer);
  if (ct !== undefined) {
    if (pt === undefined) return false;
    const ok = pt.every((t) => ct.includes(t) || (t === "integer" && ct.includes("number")));
    if (!ok) return false;
  }
  if (ct?.includes("array") && !arrayAssignable(producer, consumer)) return false;
  if (ct?.includes("object") && !objectAssignable(producer, consumer)) return false;
  return true;
}

/** A JSON-Schema sub-schema slot (`items`, `additionalProperties`): a schema, `false` (nothing allowed) or absent. */
const slot = (v: unknown): JsonSchema | false | undefined =>
  v === false ? false : typeof v === "object" && v !== null ? (v as JsonSchema) : undefined;

function arrayAssignable(producer: JsonSchema, consumer: JsonSchema): boolean {
  const cPrefix = consumer.prefixItems as JsonSchema[] | undefined;
  const pPrefix = producer.prefixItems as JsonSchema[] | undefined;
  const ci = slot(consumer.items);
  const pi = slot(producer.items);
  if (cPrefix !== undefined) {
    // Tuple consumer: only a tuple of the same length with compatible positions is safe.
    if (pPrefix === undefined || pPrefix.length !== cPrefix.length) return false;
    if (!pPrefix.every((p, i) => isAssignable(p, cPrefix[i]!))) return false;
    return ci === undefined || pi === false || (pi !== undefined && ci !== false && isAssignable(pi, ci));
  }
  if (ci === undefined) return true;
  // Every element the producer may hold (tuple positions and rest items) must fit the consumer's items.
  if (pPrefix !== undefined && !pPrefix.every((p) => ci !== false && isAssignable(p, ci))) return false;
  if (pi === false) return true;
  if (pi === undefined) return pPrefix !== undefined ? false : ci !== false && isAssignable({}, ci);
  return ci !== false && isAssignable(pi, ci);
}

function objectAssignable(producer: JsonSchema, consumer: JsonSchema): boolean {
  const cp = (consumer.properties ?? {}) as Record<string, JsonSchema>;
  const pp = (producer.properties ?? {}) as Record<string, JsonSchema>;
  const creq = (consumer.required ?? []) as string[];
  const preq = new Set((producer.required ?? []) as string[]);
  for (const r of creq) if (!preq.has(r)) return false;
  for (const [k, schema] of Object.entries(cp)) if (pp[k] !== undefined && !isAssignable(pp[k]!, schema)) return false;
  // Keys the consumer does not name are checked against its additionalProperties (records, strict objects).
  const cAdditional = slot(consumer.additionalProperties);
  if (cAdditional === undefined) return true;
  const extraKeys = Object.keys(pp).filter((k) => !Object.hasOwn(cp, k));
  const pAdditional = slot(producer.additionalProperties);
  if (cAdditional === false) return extraKeys.length === 0 && pAdditional === false;
  if (!extraKeys.every((k) => isAssignable(pp[k]!, cAdditional))) return false;
  return pAdditional === false || isAssignable(pAdditional ?? {}, cAdditional);
}

/** May this (producer) schema let `undefined` through? Defaults fill it in, so they don't count. */
function mayBeUndefined(schema: z.ZodType): boolean {
  try {
    const result = schema.safeParse(undefined);
    return result.success && result.data === undefined;
  } catch {
    return false;
  }
}

function acceptsUndefined(schema: z.ZodType): boolean {
  try {
    return schema.safeParse(undefined).success;
  } catch {
    return false;
  }
}

function describe(s: JsonSchema): string {
  const text = JSON.stringify(s, (k, v) => (k === "$schema" ? undefined : v));
  return text.length > 240 ? `${text.slice(0, 237)}...` : text;
}

/** Strict schema typing of node inputs and outputs. Gates and interrupts have no schemas and are not checked (documented in the README). */
export function checkStrictTypes(graph: Graph, nodes: readonly AnyNode[], where: string): void {
  const byName = graph.nodes;
  for (const e of graph.edges) {
    if (e.kind !== "data") continue;
    const from = byName.get(e.from)!;
    const to = byName.get(e.to)!;
    if (from.kind === "interrupt" || to.kind === "interrupt" || to.kind === "gate") continue;
    for (const value of e.valueNames) {
      const out = outputSchemaOf(from, value);
      const inp = inputSchemaOf(to, value);
      if (out === undefined || inp === undefined) {
        const missing = [
          out === undefined ? `'${e.from}' has no outputSchema for '${value}'` : undefined,
          inp === undefined ? `'${e.to}' has no zod schema for input '${value}'` : undefined,
        ]
          .filter(Boolean)
          .join(" and ");
        throw new GraphConfigError(
          `strictTypes is on in ${where}, but the edge ${e.from} → ${e.to} ('${value}') is untyped: ${missing}.\n` +
            `  How to fix: add outputSchema to '${e.from}' and inputs: { ${value}: z.… } to '${e.to}', or turn strictTypes off.`,
          { where: e.to },
        );
      }
      const produced = toJson(out, "output");
      const accepted = toJson(inp, "input");
      // JSON Schema has no `undefined`: an optional producer feeding a required consumer is checked on the zod side.
      const undefinedLeaks = mayBeUndefined(out) && !acceptsUndefined(inp);
      if (undefinedLeaks || !isAssignable(produced, accepted)) {
        throw new GraphConfigError(
          `Type mismatch in ${where} on '${value}': '${e.from}' produces ${describe(produced)}${undefinedLeaks ? " or undefined" : ""} but '${e.to}' expects ${describe(accepted)}.\n` +
            `  How to fix: make the schemas agree, or convert the value in a node between them.`,
          { where: e.to },
        );
      }
    }
  }
  void nodes;
}
