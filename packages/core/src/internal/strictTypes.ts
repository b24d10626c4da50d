import * as z from "zod";
import { GraphConfigError } from "../errors.js";
import { GateNode } from "../gates.js";
import type { AnyNode, Graph } from "../Graph.js";
import { GraphNode } from "../GraphNode.js";
import { InterruptNode } from "../interrupt.js";
import { FunctionNode } from "../node.js";

type JsonSchema = { [key: string]: unknown };

function outputSchemaOf(n: AnyNode, output: string): z.ZodType | undefined {
  if (n instanceof FunctionNode) return n.outputSchema(output);
  if (n instanceof GraphNode) {
    const inner = n.innerOutput(output);
    const producer = inner === undefined ? undefined : n.graph.analysis.producers.get(inner)?.[0];
    const schema = producer === undefined || inner === undefined ? undefined : outputSchemaOf(n.graph.nodes.get(producer)!, inner);
    return schema === undefined || n.mapOverConfig === undefined ? schema : z.array(schema);
  }
  return undefined;
}

function inputSchemaOf(n: AnyNode, input: string): z.ZodType | undefined {
  if (n instanceof FunctionNode) return n.inputSchema(input);
  if (n instanceof GraphNode) {
    const inner = n.innerInput(input);
    if (inner === undefined) return undefined;
    const consumer = [...n.graph.nodes.values()].find((c) => c.inputs.includes(inner));
    const schema = consumer === undefined ? undefined : inputSchemaOf(consumer, inner);
    return schema === undefined || !n.mapOverConfig?.params.includes(input) ? schema : z.array(schema);
  }
  return undefined;
}

function toJson(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  return z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
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

const jsonType = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "array" : Number.isInteger(v) ? "integer" : typeof v);

/** Is every value the producer schema allows also allowed by the consumer schema? (JSON-Schema level, conservative.) */
export function isAssignable(producer: JsonSchema, consumer: JsonSchema): boolean {
  const consumerKeys = Object.keys(consumer).filter((k) => k !== "$schema" && k !== "description" && k !== "default");
  if (consumerKeys.length === 0) return true; // consumer accepts anything
  const pv = variants(producer);
  if (pv !== undefined) return pv.every((p) => isAssignable(p, consumer));
  const cv = variants(consumer);
  if (cv !== undefined) return cv.some((c) => isAssignable(producer, c));
  const pl = literals(producer);
  const cl = literals(consumer);
  if (cl !== undefined) return pl !== undefined && pl.every((v) => cl.some((c) => JSON.stringify(c) === JSON.stringify(v)));
  const ct = typesOf(consumer);
  const pt = pl !== undefined ? [...new Set(pl.map(jsonType))] : typesOf(producer);
  if (ct !== undefined) {
    if (pt === undefined) return false;
    const ok = pt.every((t) => ct.includes(t) || (t === "integer" && ct.includes("number")));
    if (!ok) return false;
  }
  if (ct?.includes("array")) {
    const ci = consumer.items as JsonSchema | undefined;
    const pi = producer.items as JsonSchema | undefined;
    if (ci !== undefined && !(pi !== undefined && isAssignable(pi, ci))) return false;
  }
  if (ct?.includes("object")) {
    const cp = (consumer.properties ?? {}) as Record<string, JsonSchema>;
    const pp = (producer.properties ?? {}) as Record<string, JsonSchema>;
    const creq = (consumer.required ?? []) as string[];
    const preq = new Set((producer.required ?? []) as string[]);
    for (const r of creq) if (!preq.has(r)) return false;
    for (const [k, schema] of Object.entries(cp)) if (pp[k] !== undefined && !isAssignable(pp[k]!, schema)) return false;
  }
  return true;
}

function describe(s: JsonSchema): string {
  const text = JSON.stringify(s, (k, v) => (k === "$schema" ? undefined : v));
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** Rule 8 of SPEC §2.5. Gates and interrupts have no schemas and are not checked (documented in the README). */
export function checkStrictTypes(graph: Graph, nodes: readonly AnyNode[], where: string): void {
  const byName = graph.nodes;
  for (const e of graph.edges) {
    if (e.kind !== "data") continue;
    const from = byName.get(e.from)!;
    const to = byName.get(e.to)!;
    if (from instanceof InterruptNode || to instanceof InterruptNode || to instanceof GateNode) continue;
    for (const value of e.valueNames) {
      const out = outputSchemaOf(from, value);
      const inp = inputSchemaOf(to, value);
      if (out === undefined || inp === undefined) {
        const missing = [out === undefined ? `'${e.from}' has no outputSchema for '${value}'` : undefined, inp === undefined ? `'${e.to}' has no zod schema for input '${value}'` : undefined]
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
      if (!isAssignable(produced, accepted)) {
        throw new GraphConfigError(
          `Type mismatch in ${where} on '${value}': '${e.from}' produces ${describe(produced)} but '${e.to}' expects ${describe(accepted)}.\n` +
            `  How to fix: make the schemas agree, or convert the value in a node between them.`,
          { where: e.to },
        );
      }
    }
  }
  void nodes;
}
