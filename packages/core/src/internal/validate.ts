import { END } from "../END.js";
import { GraphConfigError } from "../errors.js";
import type { AnyNode, Graph } from "../Graph.js";
import type { GateNode } from "../gates.js";
import { checkStrictTypes } from "./strictTypes.js";
import { closestName, quoteList } from "./suggest.js";

/** Build-time checks that need the whole graph (names and targets are checked while building). */
export function validateGraph(graph: Graph, nodes: readonly AnyNode[], where: string): void {
  checkNamespaceCollisions(nodes, where);
  checkProducers(graph, nodes, where);
  checkCycles(graph, nodes, where);
  checkEventMatches(nodes, where);
  if (graph.strictTypes) checkStrictTypes(graph, nodes, where);
}

function checkNamespaceCollisions(nodes: readonly AnyNode[], where: string): void {
  const graphNodes = new Set(nodes.filter((n) => n.kind === "graph").map((n) => n.name));
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

/**
 * The exclusive part of each target's branch of a single-choice gate. A target in the gate's own loop owns its
 * region (what it causes to run before the loop's entry runs again); the loop's entry owns nothing (it runs before
 * the gate first decides). Other targets own what they reach that no other target reaches.
 */
function ownedBranches(graph: Graph, g: GateNode): Map<string, Set<string>> {
  const targets = g.targets.filter((t): t is string => t !== END);
  const regions = graph.analysis.loops.regions.get(g.name);
  const { analysis } = graph;
  const c = analysis.componentOf.get(g.name)!;
  // A loop with no entrypoint may have been started at one of these targets (its entry, chosen from the structure):
  // that target still owns itself, so the "both may run before the gate first decides" check below names it.
  const unconfigured = !graph.entrypoint.some((e) => analysis.componentOf.get(e) === c);
  const branches = targets.map((t) =>
    analysis.sameCycle(g.name, t) ? new Set(regions?.get(t) ?? (unconfigured ? [t] : [])) : branchOf(graph, g.name, t),
  );
  // A target itself only runs when the gate picks it, so it always belongs to its own branch, even when data
  // from another branch also reaches it (e.g. a loop's `write` feeding both `accept` and `reject`).
  const owned = new Map<string, Set<string>>();
  branches.forEach((b, i) => {
    const own = new Set(
      [...b].filter(
        (n) => n === targets[i] || (!targets.includes(n) && branches.every((other, j) => j === i || !other.has(n))),
      ),
    );
    owned.set(targets[i]!, own);
  });
  return owned;
}

interface ExclusivePair {
  readonly gate: GateNode;
  readonly targets: readonly [string, string];
}

/**
 * Every gate whose exclusive branches hold `a` and `b` (in different branches), by name: all of them are asked, so
 * the verdict never depends on which gate is listed first.
 */
function exclusiveGates(graph: Graph, nodes: readonly AnyNode[], a: string, b: string): ExclusivePair[] {
  const out: ExclusivePair[] = [];
  for (const g of nodes) {
    if (g.kind !== "gate" || g.multiTarget) continue;
    const owned = [...ownedBranches(graph, g)];
    const ia = owned.findIndex(([, s]) => s.has(a));
    const ib = owned.findIndex(([, s]) => s.has(b));
    if (ia >= 0 && ib >= 0 && ia !== ib) out.push({ gate: g, targets: [owned[ia]![0], owned[ib]![0]] });
  }
  return out.sort((x, y) => (x.gate.name < y.gate.name ? -1 : 1));
}

/**
 * Both targets may run before the gate first decides: they are in its loop, it is `defaultOpen` and the loop has no
 * entrypoint, so "only the chosen branch runs" does not hold on the first pass.
 */
function opensBeforeDeciding(graph: Graph, pair: ExclusivePair): boolean {
  const { analysis } = graph;
  const { gate } = pair;
  const c = analysis.componentOf.get(gate.name)!;
  if (!analysis.cyclic.has(c) || !gate.defaultOpen) return false;
  if (!pair.targets.every((t) => analysis.componentOf.get(t) === c)) return false;
  return !graph.entrypoint.some((e) => analysis.componentOf.get(e) === c);
}

function checkProducers(graph: Graph, nodes: readonly AnyNode[], where: string): void {
  for (const [value, producers] of graph.analysis.producers) {
    for (let i = 0; i < producers.length; i++) {
      for (let j = i + 1; j < producers.length; j++) {
        const a = producers[i]!;
        const b = producers[j]!;
        const pairs = exclusiveGates(graph, nodes, a, b);
        // One gate that lets both run before it first decides is enough: a target runs when any of its gates permits.
        const open = pairs.find((p) => opensBeforeDeciding(graph, p));
        if (open !== undefined) {
          const gate = open.gate;
          throw new GraphConfigError(
            `Multiple nodes produce '${value}' in ${where}: '${a}' and '${b}' are in exclusive branches of gate '${gate.name}', but that gate is in a loop with no entrypoint, so both may run before it first decides (defaultOpen: true).\n` +
              `  → Exclusive producers are only safe when nothing in the loop runs a branch before the gate has chosen it.\n` +
              `  How to fix: set entrypoint to the node that starts the loop (e.g. the node that feeds '${gate.name}'), or defaultOpen: false on '${gate.name}'.`,
            { where: b },
          );
        }
        if (pairs.length > 0) continue;
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
    const gates = members.map((m) => byName.get(m)!).filter((n): n is GateNode => n.kind === "gate");
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
 * Deadlock rule: every node of the cycle is held back by a `defaultOpen: false` gate of the same cycle, so
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

/**
 * A `waitFor` matches payload fields against run values. A match value no other node produces or reads is the
 * graph's own input, which is fine, unless a value with a close name exists: then it is almost surely a typo that
 * would make every event miss (the workflow would wait for a value nobody sends). A field matched on the run value
 * of its own name (`{ userId: "userId" }`) is deliberate, whatever else looks alike; a missing value then fails the
 * run with MissingInputError like any other input.
 */
function checkEventMatches(nodes: readonly AnyNode[], where: string): void {
  for (const n of nodes) {
    if (n.kind !== "interrupt") continue;
    const match = n.eventMatch;
    if (match === undefined) continue;
    const known = new Set<string>();
    for (const other of nodes) {
      if (other === n) continue;
      for (const v of other.inputs) known.add(v);
      for (const v of other.outputs) known.add(v);
    }
    for (const [field, value] of Object.entries(match)) {
      if (known.has(value) || value === field) continue;
      const close = closestName(value, known);
      if (close === undefined) continue;
      throw new GraphConfigError(
        `waitFor '${n.name}' in ${where} matches payload field '${field}' on the run value '${value}', which no other node produces or reads. Did you mean '${close}'?\n  How to fix: match: { ${field}: "${close}" }. If '${value}' is meant as an input of its own, name it after the field (match: { ${field}: "${field}" }).`,
        { where: n.name },
      );
    }
  }
}
