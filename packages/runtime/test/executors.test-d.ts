import type { AnyNode, FunctionNode, GateNode, GraphNode, InterruptNode, NodeKind } from "@graph/core";
import { describe, expectTypeOf, it } from "vitest";
import { EXECUTORS, type Executor, type ExecutorTable, type NodeOfKind } from "../src/internal/executors/table.js";

describe("the executor table", () => {
  it("has one executor per node kind, each typed for its node class", () => {
    expectTypeOf<NodeKind>().toEqualTypeOf<"function" | "gate" | "interrupt" | "graph">();
    expectTypeOf<keyof typeof EXECUTORS>().toEqualTypeOf<NodeKind>();
    expectTypeOf<NodeOfKind<"function">>().toEqualTypeOf<FunctionNode<any>>();
    expectTypeOf<NodeOfKind<"gate">>().toEqualTypeOf<GateNode<any>>();
    expectTypeOf<NodeOfKind<"interrupt">>().toEqualTypeOf<InterruptNode<any>>();
    expectTypeOf<NodeOfKind<"graph">>().toEqualTypeOf<GraphNode<any>>();
    expectTypeOf(EXECUTORS.gate).parameter(2).toEqualTypeOf<GateNode<any>>();
  });

  it("does not compile when a node kind has no executor", () => {
    // A node kind added to core (a new member of AnyNode with kind "loop") makes the table incomplete:
    // @ts-expect-error Property 'loop' is missing: the runtime's table has no executor for it
    const withNewKind: ExecutorTable<NodeKind | "loop"> = EXECUTORS;
    // Leaving a kind out is refused the same way.
    // @ts-expect-error Property 'graph' is missing
    const withoutGraph: ExecutorTable = {
      function: EXECUTORS.function,
      gate: EXECUTORS.gate,
      interrupt: EXECUTORS.interrupt,
    };
    // An executor for another kind's node does not fit.
    const forGates: Executor<GateNode> = EXECUTORS.gate;
    // @ts-expect-error a gate executor is not a function node's executor
    const wrongKind: ExecutorTable = { ...EXECUTORS, function: forGates };
    expectTypeOf([withNewKind, withoutGraph, wrongKind]).toBeArray();
  });

  it("narrows a node by its kind, with no cast", () => {
    const describeNode = (n: AnyNode): string => {
      switch (n.kind) {
        case "function":
          return n.mode;
        case "gate":
          return n.targets.join("|");
        case "interrupt":
          return n.responseKey;
        case "graph":
          return n.graph.name ?? n.name;
        default:
          expectTypeOf(n).toBeNever();
          return n;
      }
    };
    expectTypeOf(describeNode).returns.toBeString();
  });
});
