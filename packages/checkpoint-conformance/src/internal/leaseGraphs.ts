/**
 * Graphs of the engine lease tests, built the same way in the test process and in its children (a resume needs
 * the same graph): a long node that waits for a stop, and a workflow with a nested graph and a 3-item map whose
 * items can be held up by a hook (the zombie freezes while they wait).
 */
import { Graph, node } from "@graph/core";

/** One node that runs until the run is stopped; `started` is called when it runs, `aborted` when its signal fires. */
export function waitGraph(started: () => void, aborted: () => void): Graph {
  const wait = node({ name: "wait", output: "done", inputs: [] }, async (_: Record<string, never>, ctx) => {
    started();
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    aborted();
    return true;
  });
  return new Graph([wait], { name: "wait" });
}

/**
 * The zombie's workflow: `first` → nested `inner` (`prep` → `items` mapped over 3 items) → `last`. `prepHook` runs
 * inside `prep` (a node of the nested graph), `itemHook` inside each map item.
 */
export function zombieGraph(
  itemHook: (x: number) => Promise<void>,
  prepHook: () => Promise<void> = async () => undefined,
): Graph {
  const work = node({ name: "work", output: "y" }, async ({ x }: { x: number }) => {
    await itemHook(x);
    return x * 10;
  });
  const item = new Graph([work], { name: "item" });
  const prep = node({ name: "prep", output: "x" }, async ({ n }: { n: number }) => {
    await prepHook();
    return Array.from({ length: n }, (_, i) => i + 1);
  });
  const inner = new Graph([prep, item.asNode({ name: "items" }).mapOver("x")], { name: "inner" });
  const first = node({ name: "first", output: "n" }, ({ start }: { start: number }) => start + 2);
  const last = node({ name: "last", output: "total" }, ({ y }: { y: number[] }) => y.reduce((a, b) => a + b, 0));
  return new Graph([first, inner.asNode(), last], { name: "zombie" });
}

/** The zombie workflow's input: 3 map items. */
export const ZOMBIE_VALUES = { start: 1 } as const;
/** Its result: items 1, 2, 3 → 10 + 20 + 30. */
export const ZOMBIE_TOTAL = 60;
