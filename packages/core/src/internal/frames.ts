import { GraphConfigError } from "../errors.js";
import type { AnyNode } from "../Graph.js";
import { type GraphNode, makeFramesNode } from "../GraphNode.js";
import type { FunctionNode } from "../node.js";

/** Builds the inner graph of a frames pipeline (the Graph class, passed in: this module can't import it back). */
type MakeGraph = (nodes: readonly AnyNode[]) => import("../Graph.js").Graph;

/**
 * Replaces every frames node and the nodes that consume its frames (its *region*) by one pipeline node named like
 * the frames node. The region is every node that reads the frames output, or an output of a node of the region,
 * except nodes with `gather: true` (they read the lists). Node order is kept: the pipeline takes the source's place.
 */
export function expandFrames(nodes: readonly AnyNode[], where: string, makeGraph: MakeGraph): readonly AnyNode[] {
  const sources = nodes.filter((n): n is FunctionNode => n.kind === "function" && n.frames !== undefined);
  if (sources.length === 0) return nodes;
  const regions = new Map(sources.map((s) => [s, regionOf(s, nodes)] as const));
  // A frames node inside another one's region becomes its own pipeline one level down (in that region's graph).
  const nested = new Set<AnyNode>([...regions.values()].flat());
  const taken = new Map<AnyNode, FunctionNode>();
  const replaced = new Map<AnyNode, GraphNode>();
  for (const [source, region] of regions) {
    if (nested.has(source)) continue;
    for (const member of region) {
      const other = taken.get(member);
      if (other !== undefined)
        throw new GraphConfigError(
          `Node '${member.name}' in ${where} consumes the frames of both '${other.name}' and '${source.name}'.\n` +
            `  → A node runs once per frame of one stream; two streams have no frame in common.\n` +
            `  How to fix: give it gather: true to read both lists once the streams ended, or feed one stream's frames into a nested graph.`,
          { where: member.name },
        );
      taken.set(member, source);
    }
    checkRegion(source, region, where);
    const inner = makeGraph(region);
    replaced.set(source, makeFramesNode(source, inner, source.frames!.window));
  }
  const out: AnyNode[] = [];
  for (const n of nodes) {
    if (taken.has(n)) continue;
    out.push(replaced.get(n) ?? n);
  }
  return out;
}

/** The nodes that run once per frame of `source`, in node-list order. */
function regionOf(source: FunctionNode, nodes: readonly AnyNode[]): AnyNode[] {
  const perFrame = new Set<string>(source.outputs);
  const members = new Set<AnyNode>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const n of nodes) {
      if (n === source || members.has(n) || (n.kind === "function" && n.gather)) continue;
      if (!n.inputs.some((i) => perFrame.has(i))) continue;
      members.add(n);
      for (const o of n.outputs) perFrame.add(o);
      grew = true;
    }
  }
  return nodes.filter((n) => members.has(n));
}

function checkRegion(source: FunctionNode, region: readonly AnyNode[], where: string): void {
  for (const member of region) {
    if (member.kind === "gate" || member.kind === "interrupt") {
      const what = member.kind === "gate" ? "gate" : "interrupt";
      throw new GraphConfigError(
        `The ${what} '${member.name}' in ${where} consumes the frames of '${source.name}' (frames: true).\n` +
          `  → Frames run their consumers as a pipelined map: ${what === "gate" ? "a gate decides once for the whole run, not once per frame" : "an interrupt pauses the whole run for one answer, not once per frame"}.\n` +
          `  How to fix: decide inside a function node of the pipeline, or read the whole list in a node with gather: true and put the ${what} after it.`,
        { where: member.name },
      );
    }
    const loop = member.outputs.find((o) => source.inputs.includes(o));
    if (loop !== undefined)
      throw new GraphConfigError(
        `Node '${member.name}' in ${where} runs once per frame of '${source.name}' and writes '${loop}', which '${source.name}' reads.\n` +
          `  → A frame's results can't feed the stream that produces the frames.\n` +
          `  How to fix: rename the output, or give '${member.name}' gather: true so it runs once on the lists.`,
        { where: member.name },
      );
  }
}
