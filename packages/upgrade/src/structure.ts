/**
 * The compact structure record of a graph: what `@graph/upgrade` stores with every workflow (content-addressed by
 * the graph's definition hash) and compares a new graph with.
 *
 * @module
 */
import { type AnyNode, END, type Graph } from "@graph/core";
import { z } from "zod";

/** The structure format this version writes and reads. */
export const STRUCTURE_FORMAT = 1;

/** One node of a {@link GraphStructure}. */
export interface StructureNode {
  readonly name: string;
  /** `function`, `gate`, `interrupt` or `graph` (a nested graph used as a node). */
  readonly kind: AnyNode["kind"];
  /** The node's `definitionHash`: its code and configuration. */
  readonly hash: string;
  readonly inputs: readonly string[];
  /** Output names; an interrupt's only output is its response key. */
  readonly outputs: readonly string[];
  /** Gates: their targets, with `END` as the string `"END"`. */
  readonly targets?: readonly string[];
  /**
   * Static types of the ports that have a zod schema (`inputs` schemas, `outputSchema`), as JSON Schema, by public
   * port name: what a later version's types are compared with.
   */
  readonly types?: {
    readonly inputs?: Readonly<Record<string, unknown>>;
    readonly outputs?: Readonly<Record<string, unknown>>;
  };
}

interface Port {
  readonly name: string;
  readonly original: string;
}

/** JSON Schemas of the ports with a schema, by public name (schemas are keyed by the node's own port names). */
function portTypes(ports: readonly Port[], schemas: Readonly<Record<string, z.ZodType>> | undefined) {
  if (schemas === undefined) return undefined;
  const types: Record<string, unknown> = {};
  for (const p of ports) {
    const schema = schemas[p.original];
    if (schema === undefined) continue;
    try {
      types[p.name] = z.toJSONSchema(schema, { unrepresentable: "any", io: "input" });
    } catch {
      // A schema JSON Schema can't express: no static type for this port (stored values are still checked).
    }
  }
  return Object.keys(types).length === 0 ? undefined : types;
}

function typesOf(node: AnyNode): StructureNode["types"] {
  if (node.kind !== "function") return undefined;
  const spec = node.spec as {
    readonly inputs: readonly Port[];
    readonly outputs: readonly Port[];
    readonly schemas?: Readonly<Record<string, z.ZodType>>;
    readonly outputSchemas?: Readonly<Record<string, z.ZodType>>;
  };
  const inputs = portTypes(spec.inputs, spec.schemas);
  const outputs = portTypes(spec.outputs, spec.outputSchemas);
  if (inputs === undefined && outputs === undefined) return undefined;
  return { ...(inputs === undefined ? {} : { inputs }), ...(outputs === undefined ? {} : { outputs }) };
}

/**
 * A graph's structure: nodes with their inputs, outputs, gate targets and hashes. JSON-safe; stored once per
 * graph version with `checkpointer.putGraphStructure`.
 *
 * @example
 * ```ts
 * import { Graph, node } from "@graph/core";
 * import { graphStructure } from "@graph/upgrade";
 *
 * const shout = node({ output: "loud" }, function shout({ text }: { text: string }) {
 *   return text.toUpperCase();
 * });
 * const structure = graphStructure(new Graph([shout], { name: "demo" }));
 * structure.nodes[0]?.outputs; // ["loud"]
 * ```
 */
export interface GraphStructure {
  readonly format: typeof STRUCTURE_FORMAT;
  readonly name: string;
  /** The graph's `definitionHash`. */
  readonly hash: string;
  /** A version label given with `upgradable(graph, { label })`, which migrations may name as their `from`. */
  readonly label?: string;
  readonly nodes: readonly StructureNode[];
}

/**
 * The structure record of `graph` (nodes in the graph's order), with an optional version label.
 *
 * @example
 * ```ts
 * import { Graph, node } from "@graph/core";
 * import { graphStructure } from "@graph/upgrade";
 *
 * const add = node({ output: "sum" }, function add({ a, b }: { a: number; b: number }) {
 *   return a + b;
 * });
 * graphStructure(new Graph([add], { name: "sum" }), "v1").label; // "v1"
 * ```
 */
export function graphStructure(graph: Graph, label?: string): GraphStructure {
  const nodes: StructureNode[] = [];
  for (const node of graph.nodes.values()) {
    const targets = node.kind === "gate" ? node.targets.map((t) => (t === END ? "END" : (t as string))) : undefined;
    const types = typesOf(node);
    nodes.push({
      name: node.name,
      kind: node.kind,
      hash: node.definitionHash,
      inputs: [...node.inputs],
      outputs: [...node.outputs],
      ...(targets === undefined ? {} : { targets }),
      ...(types === undefined ? {} : { types }),
    });
  }
  return {
    format: STRUCTURE_FORMAT,
    name: graph.name ?? "graph",
    hash: graph.definitionHash,
    ...(label === undefined ? {} : { label }),
    nodes,
  };
}
