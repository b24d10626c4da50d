/**
 * The workflow of the due-time wake test: `a` → `nap` (a 1 s sleep) → `b`, built the same way by the process that
 * pauses it and by the idle runner that must wake it. Node functions are trampolines with a fixed source, so every
 * process gets the same `definitionHash` (see engineGraph.ts).
 */
import { Graph, node, sleep } from "@graph/core";
import { asyncTrampoline } from "./engineGraph.js";

/** How long the workflow sleeps between `a` and `b`. */
export const NAP_MS = 1_000;

export interface DueHooks {
  readonly b: (n: number) => void;
}

export function dueGraph(hooks: DueHooks): Graph {
  const a = node(
    { name: "a", inputs: ["n"], output: "x" },
    asyncTrampoline(({ n }: { n: number }) => n + 1),
  );
  const nap = sleep({ name: "nap", input: "x", duration: NAP_MS, output: "napped" });
  const b = node(
    { name: "b", inputs: ["x", "napped"], output: "y" },
    asyncTrampoline(({ x }: { x: number }) => {
      hooks.b(x);
      return x * 10;
    }),
  );
  return new Graph([a, nap, b], { name: "due-wake" });
}
