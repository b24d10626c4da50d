import { GraphConfigError } from "../errors.js";
import type { Graph } from "../Graph.js";
import type { EdgeSpec } from "./analysis.js";
import { quoteList } from "./suggest.js";

/**
 * A graph's own loop state: values it both reads and writes and seeds itself (a bound value, or a default of every
 * node that needs it from outside), such as a sub-agent's `log`. Used as a node of another graph, each call starts
 * from that seed; the parent feeds such a value only when it maps one in by name (`withInputs({ log: "history" })`).
 * Without this a second copy of the graph, or a second turn of a loop around it, would start from another call's
 * history (the parent's `log`), and nothing would fail.
 */
export function privateStateOf(graph: Graph): readonly string[] {
  const outputs = new Set(graph.outputs);
  return [...graph.inputs.optional].filter((v) => outputs.has(v));
}

/** The parts of a mapped GraphNode the check below reads (a structural view: core's GraphNode imports this file). */
interface MappedView {
  readonly name: string;
  readonly inputs: readonly string[];
  readonly mapOverConfig: { readonly params: readonly string[] } | undefined;
}

/**
 * Build-time rule: a mapped GraphNode may not read, as a value every item shares, a value it writes itself. Its
 * output is the list of every item's value, so on its next call each item would take all items' results (of the
 * previous call) as its own: a per-item history mixed with the others', silently.
 */
export function checkOwnCollectedInput(node: MappedView, edges: readonly EdgeSpec[]): void {
  const mapOver = node.mapOverConfig;
  if (mapOver === undefined) return;
  const fedBack = new Set<string>();
  for (const e of edges)
    if (e.kind === "data" && e.from === node.name && e.to === node.name)
      for (const v of e.valueNames) if (!mapOver.params.includes(v)) fedBack.add(v);
  if (fedBack.size === 0) return;
  const [first] = fedBack;
  const renames = [...fedBack].map((v) => `${v}: "${v}s"`).join(", ");
  throw new GraphConfigError(
    `GraphNode '${node.name}' maps over ${quoteList(mapOver.params)} and also takes ${quoteList(fedBack)}, which it writes itself.\n` +
      `  → Its output ${quoteList(fedBack)} is the list of every item's value, so on its next call each item would receive all items' results as its own '${first}'.\n` +
      `  How to fix: rename its output, .withOutputs({ ${renames} }) — each item then starts from the '${first}' the parent passes, or from the nested graph's own seed when the parent passes none — or map over ${quoteList(fedBack)} too (each item takes its own entry).`,
    { where: node.name },
  );
}
