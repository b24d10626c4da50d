import { type AnyNode, FunctionNode, Graph, GraphNode } from "@graph/core";
import type { Matcher } from "@graph/select";
import { ReplayError } from "../errors.js";

/** Hands out a path's recorded outputs in order, and counts what was used. */
export class Recorded {
  readonly #outputs: ReadonlyMap<string, readonly Readonly<Record<string, unknown>>[]>;
  readonly used = new Map<string, number>();

  constructor(outputs: ReadonlyMap<string, readonly Readonly<Record<string, unknown>>[]>) {
    this.#outputs = outputs;
  }

  available(path: string): number {
    return this.#outputs.get(path)?.length ?? 0;
  }

  next(path: string): Readonly<Record<string, unknown>> {
    const n = this.used.get(path) ?? 0;
    const all = this.#outputs.get(path) ?? [];
    if (n >= all.length)
      throw new ReplayError(
        `Node '${path}' is mocked but the stored run has no recorded output left for call ${n + 1} (it recorded ${all.length}). The new graph calls it more often than the old one did: mock fewer nodes, or compare without this node mocked.`,
      );
    this.used.set(path, n + 1);
    return all[n]!;
  }
}

/** A function node with the same ports as `node` whose body returns the next recorded output of `path`. */
function mockNode(node: FunctionNode, path: string, recorded: Recorded): FunctionNode {
  const spec = node.spec;
  // The body sees original port names; the recording has public ones (after `withOutputs`).
  const fn = async () => {
    const values = recorded.next(path);
    if (spec.outputKind === "none") return undefined;
    if (spec.outputKind === "single") return values[spec.outputs[0]!.name];
    return Object.fromEntries(spec.outputs.map((p) => [p.original, values[p.name]]));
  };
  return new FunctionNode({ ...spec, fn, mode: "async" });
}

/**
 * `graph` with every function node whose path `matcher` matches replaced by a mock (nested graphs rebuilt around
 * their mocked nodes). A graph that can't be rebuilt from its public configuration is refused, not approximated.
 */
export function mockGraph(graph: Graph, matcher: Matcher, recorded: Recorded, prefix = ""): Graph {
  let changed = false;
  const nodes: AnyNode[] = [];
  for (const node of graph.nodes.values()) {
    const path = `${prefix}${node.name}`;
    if (node.kind === "function" && matcher.matches(path)) {
      nodes.push(mockNode(node, path, recorded));
      changed = true;
    } else if (node.kind === "graph" && matcher.couldMatchBelow(path)) {
      if (node.spec.mapOver !== undefined)
        throw new ReplayError(
          `replay can't mock nodes inside the mapped graph '${path}' (its items run concurrently, so recorded calls have no order). Mock the mapped node '${path}' as a whole, or nothing under it.`,
        );
      const inner = mockGraph(node.graph, matcher, recorded, `${path}/`);
      if (inner === node.graph) nodes.push(node);
      else {
        nodes.push(new GraphNode({ ...node.spec, graph: inner }));
        changed = true;
      }
    } else nodes.push(node);
  }
  if (!changed) return graph;
  const options = {
    ...(graph.name === undefined ? {} : { name: graph.name }),
    strictTypes: graph.strictTypes,
    completeOnStop: graph.completeOnStop,
    ...(graph.entrypoint.length === 0 ? {} : { entrypoint: graph.entrypoint }),
  };
  // The same options with the original nodes must give the original graph back, or the rebuild lost something.
  if (new Graph([...graph.nodes.values()], options).definitionHash !== graph.definitionHash)
    throw new ReplayError(
      `replay can't rebuild graph '${graph.name ?? "(unnamed)"}' around its mocked nodes (it was built with options replay can't read back, such as explicit edges). Mock nodes of graphs built without the 'edges' option.`,
    );
  const rebuilt = new Graph(nodes, options);
  return Object.keys(graph.inputs.bound).length === 0 ? rebuilt : rebuilt.bind(graph.inputs.bound);
}
