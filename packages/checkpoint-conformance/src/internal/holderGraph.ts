/**
 * The workflow of the wait-for-lease test, built the same way by the crashed holder (a child process) and by the run
 * that takes over: `first` → `second`. Hooks say what each node does in each process; the node functions are
 * trampolines with a fixed source, so both processes get the same `definitionHash` (see engineGraph.ts).
 */
import { Graph, node } from "@graph/core";
import { asyncTrampoline, trampoline } from "./engineGraph.js";

export interface HolderHooks {
  readonly first: () => void;
  readonly second: (x: number) => Promise<number>;
}

export function holderGraph(hooks: HolderHooks): Graph {
  const first = node(
    { name: "first", inputs: ["n"], output: "x" },
    trampoline(({ n }: { n: number }) => {
      hooks.first();
      return n + 1;
    }),
  );
  const second = node(
    { name: "second", inputs: ["x"], output: "y" },
    asyncTrampoline(({ x }: { x: number }) => hooks.second(x)),
  );
  return new Graph([first, second], { name: "holder" });
}
