/**
 * Brands and guards for graphs and nodes. Every node and every graph carries a registered symbol
 * (`Symbol.for("@graph/node")`, `Symbol.for("@graph/graph")`) whose value is the version of the contract between
 * nodes and the code that runs them. The guards read the brand, never the prototype chain: a graph built with a
 * second copy of `@graph/core` (two versions in one app, a dedupe miss) is still a graph to this copy, as long as
 * both copies speak the same contract; when they don't, building or running it fails with a `GraphConfigError` that
 * says so.
 *
 * @module
 */
import type { AnyNode, Graph } from "./Graph.js";
import type { GraphNode } from "./GraphNode.js";
import type { GateNode } from "./gates.js";
import type { InterruptNode } from "./interrupt.js";
import type { FunctionNode } from "./node.js";

/**
 * The brand of every node (`Symbol.for("@graph/node")`); its value is {@link NODE_PROTOCOL}.
 *
 * @example
 * ```ts
 * import { NODE_BRAND, node } from "@graph/core";
 * node({ name: "n" }, () => 1)[NODE_BRAND]; // 1
 * ```
 */
export const NODE_BRAND: unique symbol = Symbol.for("@graph/node") as never;

/**
 * The brand of every graph (`Symbol.for("@graph/graph")`); its value is {@link NODE_PROTOCOL}.
 *
 * @example
 * ```ts
 * import { GRAPH_BRAND, Graph } from "@graph/core";
 * new Graph([])[GRAPH_BRAND]; // 2
 * ```
 */
export const GRAPH_BRAND: unique symbol = Symbol.for("@graph/graph") as never;

/**
 * The version of what the runtime (and a graph of another copy of `@graph/core`) reads and calls on nodes and
 * graphs. Raised whenever one of those members changes; two copies with the same number work together.
 *
 * @example
 * ```ts
 * import { NODE_PROTOCOL } from "@graph/core";
 * console.log(`@graph/core node protocol ${NODE_PROTOCOL}`);
 * ```
 */
export const NODE_PROTOCOL = 2;

/**
 * What a node is, as the runtime dispatches on it: `"function"` (`node()`), `"gate"` (`route()`, `ifElse()`),
 * `"interrupt"` (`interrupt()`), `"graph"` (`graph.asNode()`). Every node has it as `node.kind`; `switch (node.kind)`
 * narrows an {@link AnyNode} to its class. (`node.nodeType` tells the two gates apart: `"route"` or `"branch"`.)
 *
 * @example
 * ```ts
 * const label = (n: AnyNode): string => {
 *   switch (n.kind) {
 *     case "function": return n.mode;
 *     case "gate": return n.targets.join(" | ");
 *     case "interrupt": return n.responseKey;
 *     case "graph": return n.graph.name ?? n.name;
 *   }
 * };
 * ```
 */
export type NodeKind = AnyNode["kind"];

/** The brand's value on `value`, or undefined when it has none. @internal */
export function brandOf(value: unknown, brand: typeof NODE_BRAND | typeof GRAPH_BRAND): unknown {
  return typeof value === "object" && value !== null ? (value as Record<symbol, unknown>)[brand] : undefined;
}

/**
 * True for a node of any copy of `@graph/core` that speaks this copy's {@link NODE_PROTOCOL}.
 *
 * @example
 * ```ts
 * import { isNode } from "@graph/core";
 * const nodes = candidates.filter(isNode);
 * ```
 */
export function isNode(value: unknown): value is AnyNode {
  return brandOf(value, NODE_BRAND) === NODE_PROTOCOL;
}

/**
 * True for a graph of any copy of `@graph/core` that speaks this copy's {@link NODE_PROTOCOL}.
 *
 * @example
 * ```ts
 * import { isGraph } from "@graph/core";
 * if (!isGraph(value)) throw new TypeError("expected a Graph");
 * ```
 */
export function isGraph(value: unknown): value is Graph {
  return brandOf(value, GRAPH_BRAND) === NODE_PROTOCOL;
}

/**
 * True for a function node (`node()`), whichever copy of `@graph/core` built it.
 *
 * @example
 * ```ts
 * if (isFunctionNode(n)) console.log(n.mode);
 * ```
 */
export function isFunctionNode(value: unknown): value is FunctionNode {
  return isNode(value) && value.kind === "function";
}

/**
 * True for a gate (`route()` or `ifElse()`), whichever copy of `@graph/core` built it.
 *
 * @example
 * ```ts
 * if (isGateNode(n)) console.log(n.targets);
 * ```
 */
export function isGateNode(value: unknown): value is GateNode {
  return isNode(value) && value.kind === "gate";
}

/**
 * True for an interrupt (`interrupt()`), whichever copy of `@graph/core` built it.
 *
 * @example
 * ```ts
 * if (isInterruptNode(n)) console.log(n.responseKey);
 * ```
 */
export function isInterruptNode(value: unknown): value is InterruptNode {
  return isNode(value) && value.kind === "interrupt";
}

/**
 * True for a nested graph (`graph.asNode()`), whichever copy of `@graph/core` built it.
 *
 * @example
 * ```ts
 * if (isGraphNode(n)) console.log(n.graph.nodes.size);
 * ```
 */
export function isGraphNode(value: unknown): value is GraphNode {
  return isNode(value) && value.kind === "graph";
}
