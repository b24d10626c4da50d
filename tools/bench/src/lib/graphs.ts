// The graphs every workload runs, built three ways: ours (@graph/core), the floor (a hand-written async loop doing
// the same work: read the named input, call the same function, store the named output) and LangGraph.js
// (see langgraph.ts). Construction is never timed; only running is.
// Node functions are `async` by default, as every LLM, HTTP or database node is; `"sync"` builds the info rows.
import { END, Graph, node, route } from "@graph/core";

/** Whether the node functions are written `async` (the headline rows) or plain synchronous (info rows). */
export type FnKind = "async" | "sync";

// ── linear chain: v0 → n0 → v1 → n1 → … → v{n} ──────────────────────────────────────────────────────────────────

/** One step of the chain: `v_{i+1} = v_i + 1`, reading and writing named values like a node does. */
export interface ChainStep {
  readonly name: string;
  readonly input: string;
  readonly output: string;
  readonly fn: (inputs: Record<string, number>) => number | Promise<number>;
}

export function chainSteps(length: number, kind: FnKind = "async"): ChainStep[] {
  return Array.from({ length }, (_, i) => {
    const input = `v${i}`;
    const fn =
      kind === "async"
        ? async (inputs: Record<string, number>) => inputs[input]! + 1
        : (inputs: Record<string, number>) => inputs[input]! + 1;
    return { name: `n${i}`, input, output: `v${i + 1}`, fn };
  });
}

export function ourChain(length: number, kind: FnKind = "async"): Graph {
  const nodes = chainSteps(length, kind).map((s) => node({ name: s.name, inputs: [s.input], output: s.output }, s.fn));
  return new Graph(nodes, { name: `chain${length}` });
}

/** The floor: an async loop over the same step functions, with the values kept by name in a record. */
export async function floorChain(steps: readonly ChainStep[], v0: number): Promise<Record<string, number>> {
  const state: Record<string, number> = { v0 };
  for (const step of steps) state[step.output] = await step.fn({ [step.input]: state[step.input]! });
  return state;
}

// ── agent loop: increment(count) → count, route back to increment until count reaches the limit ───────────────

export const AGENT_ITERATIONS = 20;

function increment({ count }: { count: number }): number {
  return count + 1;
}

async function incrementAsync({ count }: { count: number }): Promise<number> {
  return count + 1;
}

function shouldContinue({ count }: { count: number }): "increment" | typeof END {
  return count >= AGENT_ITERATIONS ? END : "increment";
}

export function ourAgentLoop(kind: FnKind = "async"): Graph {
  const inc =
    kind === "async"
      ? node({ name: "increment", output: "count" }, incrementAsync)
      : node({ name: "increment", output: "count" }, increment);
  const check = route({ name: "check", targets: ["increment", END] }, shouldContinue);
  return new Graph([inc, check], { name: "agent" });
}

/** The agent loop whose `increment` reports usage (`ctx.usage`), for runs under a budget. */
export function ourMeteredAgentLoop(): Graph {
  const inc = node({ name: "increment", output: "count" }, async ({ count }: { count: number }, ctx) => {
    ctx.usage({ tokens: 10 });
    return count + 1;
  });
  const check = route({ name: "check", targets: ["increment", END] }, shouldContinue);
  return new Graph([inc, check], { name: "agent" });
}

export async function floorAgentLoop(count: number): Promise<number> {
  for (;;) {
    count = await incrementAsync({ count });
    if (shouldContinue({ count }) === END) return count;
  }
}

// ── map: an inner graph mapped over `x`, then a node that reduces the array ───────────────────────────────────

export function square({ x }: { x: number }): number {
  return x * x;
}

async function squareAsync({ x }: { x: number }): Promise<number> {
  return x * x;
}

export function sum({ y }: { y: readonly number[] }): number {
  let total = 0;
  for (const v of y) total += v;
  return total;
}

export function ourMap(kind: FnKind = "async"): Graph {
  const inner = new Graph(
    [
      kind === "async"
        ? node({ name: "square", output: "y" }, squareAsync)
        : node({ name: "square", output: "y" }, square),
    ],
    { name: "item" },
  );
  return new Graph([inner.asNode().mapOver("x"), node({ name: "sum", output: "total" }, sum)], { name: "mapReduce" });
}

export async function floorMap(xs: readonly number[]): Promise<number> {
  const y = new Array<number>(xs.length);
  for (let i = 0; i < xs.length; i++) y[i] = await squareAsync({ x: xs[i]! });
  return sum({ y });
}

export const expectedMapTotal = (n: number): number => ((n - 1) * n * (2 * n - 1)) / 6;

export function items(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

/** Throws when a contender computed the wrong thing (a fast wrong answer is not a result). */
export function check(what: string, actual: unknown, expected: unknown): void {
  if (actual !== expected) throw new Error(`${what}: expected ${String(expected)}, got ${String(actual)}`);
}
