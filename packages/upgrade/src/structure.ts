/**
 * The compact structure record of a graph: what `@graph/upgrade` stores with every workflow (content-addressed by
 * the graph's definition hash) and compares a new graph with.
 *
 * @module
 */
import { type AnyNode, END, type Graph } from "@graph/core";

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
    nodes.push({
      name: node.name,
      kind: node.kind,
      hash: node.definitionHash,
      inputs: [...node.inputs],
      outputs: [...node.outputs],
      ...(targets === undefined ? {} : { targets }),
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
