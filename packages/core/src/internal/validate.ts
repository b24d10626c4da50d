import { END } from "../END.js";
import { GraphConfigError } from "../errors.js";
import type { AnyNode, Graph } from "../Graph.js";
import { GraphNode } from "../GraphNode.js";
import { GateNode } from "../gates.js";
import { checkStrictTypes } from "./strictTypes.js";
import { quoteList } from "./suggest.js";

/** Build-time checks of SPEC §2.5 that need the whole graph (names and targets are checked while building). */
export function validateGraph(graph: Graph, nodes: readonly AnyNode[], where: string): void {
  checkNamespaceCollisions(nodes, where);
  checkProducers(graph, nodes, where);
  checkCycles(graph, nodes, where);
  if (graph.strictTypes) checkStrictTypes(graph, nodes, where);
}

function checkNamespaceCollisions(nodes: readonly AnyNode[], where: string): void {
  const graphNodes = new Set(nodes.filter((n) => n instanceof GraphNode).map((n) => n.name));
  for (const n of nodes) {
    for (const o of n.outputs) {
      if (graphNodes.has(o)) {
        throw new GraphConfigError(
          `Namespace collision in ${where}: node '${n.name}' outputs '${o}', which is also the name of a GraphNode.\n` +
            `  → result.values holds outputs and nested results side by side, so result.get('${o}') would be ambiguous.\n` +
            `  How to fix: rename the output (.withOutputs({ ${o}: "${o}_value" })) or the GraphNode (graph.asNode({ name: "…" })).`,
          { where: n.name },
        );
      }
    }
  }
}

/** Nodes reachable from `start` without passing through `gate`, ignoring feedback edges. */
function branchOf(graph: Graph, gate: string, start: string): Set<string> {
  const out = new Set<string>([start]);
  const stack = [start];
  while (stack.length > 0) {
    const n = stack.pop()!;
    graph.structure.forEachOutNeighbor(n, (m) => {
      if (m === gate || out.has(m) || graph.analysis.isFeedback(n, m)) return;
      out.add(m);
      stack.push(m);
    });
  }
  return out;
}

function exclusive(graph: Graph, nodes: readonly AnyNode[], a: string, b: string): boolean {
  for (const g of nodes) {
    if (!(g instanceof GateNode) || g.multiTarget) continue;
    const targets = g.targets.filter((t): t is string => t !== END);
    const branches = targets.map((t) => branchOf(graph, g.name, t));
    // Only the part of each branch no other target reaches is exclusive to it.
    // A target itself only runs when the gate picks it, so it always belongs to its own branch, even when data
    // from another branch also reaches it (e.g. a loop's `write` feeding both `accept` and `reject`).
    // A target in the gate's own loop runs before the gate first decides (do-while), so its branch is not exclusive.
    const owned = branches.map((b, i) =>
      graph.analysis.sameCycle(g.name, targets[i]!)
        ? new Set<string>()
        : new Set(
            [...b].filter(
              (n) =>
                n === targets[i] || (!targets.includes(n) && branches.every((other, j) => j === i || !other.has(n))),
            ),
          ),
    );
    const ia = owned.findIndex((s) => s.has(a));
    const ib = owned.findIndex((s) => s.has(b));
    if (ia >= 0 && ib >= 0 && ia !== ib) return true;
  }
  return false;
}

function checkProducers(graph: Graph, nodes: readonly AnyNode[], where: string): void {
  for (const [value, producers] of graph.analysis.producers) {
    for (let i = 0; i < producers.length; i++) {
      for (let j = i + 1; j < producers.length; j++) {
        const a = producers[i]!;
        const b = producers[j]!;
        if (exclusive(graph, nodes, a, b)) continue;
        throw new GraphConfigError(
          `Multiple nodes produce '${value}' in ${where}: '${a}' and '${b}'.\n` +
            `  → Two producers of one value are only allowed in mutually exclusive branches of one gate (ifElse, or route without multiTarget).\n` +
            `  How to fix: rename one output (.withOutputs({ ${value}: "${value}_2" })) or put the producers behind one gate.`,
          { where: b },
        );
      }
    }
  }
}

function checkCycles(graph: Graph, nodes: readonly AnyNode[], where: string): void {
  const { analysis } = graph;
  const byName = graph.nodes;
  for (const c of analysis.cyclic) {
    const members = analysis.components[c]!;
    const memberSet = new Set(members);
    const cycleText = [...members, members[0]!].join(" → ");
    const gates = members.map((m) => byName.get(m)).filter((n): n is GateNode => n instanceof GateNode);
    if (gates.length > 0) {
      const exits = gates.some((g) => g.targets.some((t) => t === END || !memberSet.has(t)));
      if (!exits) {
        throw new GraphConfigError(
          `Cycle has no termination path in ${where}: ${cycleText}.\n` +
            `  → Its gates (${quoteList(gates.map((g) => g.name))}) only route back into the cycle.\n` +
            `  How to fix: let a gate return END (add END to its targets) or route to a node outside the cycle.`,
          { where: gates[0]!.name },
        );
      }
    }
    const entries = analysis.entries.get(c) ?? [];
    if (entries.length === 0) throw deadlockError(where, members, gates);
  }
  void nodes;
}

/**
 * Rule 4 of SPEC §2.5: every node of the cycle is held back by a `defaultOpen: false` gate of the same cycle, so
 * nothing can run first. Also thrown while the cycles are being broken (the entry picker finds no candidate).
 */
export function deadlockError(where: string, members: readonly string[], gates: readonly GateNode[]): GraphConfigError {
  const cycleText = [...members, members[0]!].join(" → ");
  const closed = gates.filter((g) => !g.defaultOpen).map((g) => g.name);
  return new GraphConfigError(
    `Cycle cannot start (deadlock) in ${where}: ${cycleText}.\n` +
      `  → Every node waits on the cycle: each is a target of a gate with defaultOpen: false (${quoteList(closed)}) that has not decided yet.\n` +
      `  How to fix: set entrypoint to the node that should run first, or defaultOpen: true on the gate.`,
    { where: members[0]! },
  );
}
