/**
 * The workflow of the frozen-writer test, built the same way by the runner that freezes (a child process) and by the
 * run that takes over: `first` → `second` → `third`, node functions as trampolines (see engineGraph.ts).
 */
import { Graph, node } from "@graph/core";
import { asyncTrampoline } from "./engineGraph.js";

/** `ran` is told each node that runs in this process, before it returns. */
export function frozenWriterGraph(ran: (name: string) => void): Graph {
  const step = (name: string, input: string, output: string) =>
    node(
      { name, inputs: [input], output },
      asyncTrampoline((inputs: Record<string, number>) => {
        ran(name);
        return (inputs[input] ?? 0) + 1;
      }),
    );
  return new Graph([step("first", "n", "a"), step("second", "a", "b"), step("third", "b", "c")], {
    name: "frozen-writer",
  });
}
