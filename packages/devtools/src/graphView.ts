import { type Graph, GraphNode } from "@graph/core";

/** One node of a graph view: where it is drawn (`id` in the Mermaid text) and what it is. */
export interface ViewNode {
  /** Path from the root graph: `approval`, `research/read`. */
  readonly path: string;
  /** The Mermaid id of the node (a subgraph id for GraphNodes), or undefined when it could not be located. */
  readonly id: string | undefined;
  readonly type: string;
  /** True for a GraphNode with `mapOver` (the page shows `done/total`). */
  readonly mapped: boolean;
}

/** What the page needs to draw a graph: the Mermaid text from `toMermaid()` and its nodes by path. */
export interface GraphView {
  readonly name: string;
  readonly definitionHash: string;
  readonly mermaid: string;
  readonly nodes: readonly ViewNode[];
}

/**
 * Builds the page's view of a graph. Node ids follow `toMermaid()`'s numbering (`n<i>` per level, a subgraph's
 * nodes prefixed with its id and `_`); every id is checked against the text, so a change in the renderer leaves
 * nodes unlocated (listed in the side panel) instead of colouring the wrong shapes.
 *
 * @example
 * ```ts
 * graphView(supportGraph).nodes.find((n) => n.path === "approval"); // { path: "approval", id: "n7", type: "interrupt", … }
 * ```
 */
export function graphView(graph: Graph): GraphView {
  const mermaid = graph.toMermaid();
  const declared = new Set<string>();
  for (const line of mermaid.split("\n")) {
    const m = /^\s*(?:subgraph\s+)?([A-Za-z0-9_]+)\s*(?:\[|\{|\(|$)/.exec(line);
    if (m !== null) declared.add(m[1]!);
  }
  const nodes: ViewNode[] = [];
  const walk = (g: Graph, pathPrefix: string, idPrefix: string) => {
    let i = 0;
    for (const n of g.nodes.values()) {
      const id = `${idPrefix}n${i++}`;
      const path = `${pathPrefix}${n.name}`;
      const isGraph = n instanceof GraphNode;
      nodes.push({
        path,
        id: declared.has(id) ? id : undefined,
        type: n.nodeType,
        mapped: isGraph && n.mapOverConfig !== undefined,
      });
      if (isGraph) walk(n.graph, `${path}/`, `${id}_`);
    }
  };
  walk(graph, "", "");
  return { name: graph.name ?? "graph", definitionHash: graph.definitionHash, mermaid, nodes };
}
