import type { AnyNode, NodeKind } from "@graph/core";
import type * as Effect from "effect/Effect";
import type { EngineHost } from "../host.js";
import type { Execution, Outcome, RunError } from "../outcome.js";
import { executeFunction } from "./function.js";
import { executeGraph } from "./graph.js";
import { executeInterrupt } from "./interrupt.js";
import { executeGate } from "./plain.js";

/** The node class of a kind: `NodeOfKind<"gate">` is `GateNode` (`never` for a kind no node has). */
export type NodeOfKind<K extends string> = Extract<AnyNode, { readonly kind: K }>;

/** Runs one node of its kind on the Effect path and tells what came of it. */
export type Executor<N extends AnyNode> = (
  host: EngineHost,
  ex: Execution,
  node: N,
) => Effect.Effect<Outcome, RunError>;

/**
 * One executor per node kind. Mapped over `NodeKind` (the `kind`s of `AnyNode`): a node kind added to core without
 * an executor here does not compile, instead of running as some other kind (test/executors.test-d.ts pins it).
 */
export type ExecutorTable<K extends string = NodeKind> = { readonly [P in K]: Executor<NodeOfKind<P>> };

export const EXECUTORS: ExecutorTable = {
  function: executeFunction,
  gate: executeGate,
  interrupt: executeInterrupt,
  graph: executeGraph,
};

/** Runs a node through the executor of its kind (the plain path, plain.ts, calls gates and plain functions itself). */
export function execute(host: EngineHost, ex: Execution): Effect.Effect<Outcome, RunError> {
  const node = ex.node;
  return run(host, ex, node.kind, node);
}

// The kind and the node as two arguments of one type parameter: the checker then knows the executor fits the node.
function run<K extends NodeKind>(
  host: EngineHost,
  ex: Execution,
  kind: K,
  node: NodeOfKind<K>,
): Effect.Effect<Outcome, RunError> {
  return EXECUTORS[kind](host, ex, node);
}
