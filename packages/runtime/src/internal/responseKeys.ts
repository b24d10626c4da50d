import type { Graph } from "@graph/core";

/** Response keys a graph needs passed in (its interrupts' and, through GraphNodes, nested ones), outer names. */
const responseKeyCache = new WeakMap<Graph, ReadonlySet<string>>();
export function responseKeys(graph: Graph): ReadonlySet<string> {
  let keys = responseKeyCache.get(graph);
  if (keys === undefined) {
    const set = new Set<string>();
    for (const n of graph.nodes.values()) {
      if (n.kind === "interrupt") set.add(n.responseKey);
      else if (n.kind === "graph")
        for (const k of responseKeys(n.graph)) {
          const outer = n.outerOutput(k);
          if (outer !== undefined) set.add(outer);
        }
    }
    keys = set;
    responseKeyCache.set(graph, keys);
  }
  return keys;
}
