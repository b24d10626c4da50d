// Differential test of durable retries: the engine (memory store, durability "sync") against the reference model of
// the attempt rules (test/reference/attempts.ts), for random retry budgets and random schedules of what each call
// does — fail, succeed, get stopped by runner.stop, or die with its process. A death is the store as the dead process
// left it, copied into a store whose holder is gone (the conformance kit does the same with real SIGKILLs).
import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, type NodeContext, node } from "@graph/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isAttemptsExhaustedError, isNodeExecutionError, Runner } from "../src/index.js";
import { type AttemptsOutcome, type CallEvent, type RunEnd, referenceAttempts } from "./reference/attempts.js";

const ID = "attempts-ref";

const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve())));

/** A store holding exactly `from`'s steps of the workflow, held by a process that is gone (its lease expired). */
async function afterDeath(from: MemoryCheckpointer, graph: Graph): Promise<MemoryCheckpointer> {
  const steps = await from.getSteps(ID, { includeInputs: true });
  const dead = new MemoryCheckpointer({ policy: { durability: "sync" } });
  await dead.startWorkflow(
    { id: ID, graphName: graph.name ?? "graph", graphHash: graph.definitionHash },
    { owner: "dead", ttlMs: 1 },
    steps,
  );
  await new Promise((resolve) => setTimeout(resolve, 3));
  return dead;
}

interface EngineOutcome extends AttemptsOutcome {
  /** Calls of the node before the retried one, and of the one after it. */
  readonly prep: number;
  readonly post: number;
}

/** Runs `prep → charge (retry) → post` until it completes or fails, resuming after every stop and death. */
async function engineAttempts(attempts: number, events: readonly CallEvent[], maxRuns = 50): Promise<EngineOutcome> {
  const calls: number[] = [];
  const runs: RunEnd[] = [];
  let prepCalls = 0;
  let postCalls = 0;
  let next = 0;
  let cutOff: (event: "stop" | "crash") => void = () => undefined;
  const prep = node({ name: "prep", output: "p" }, ({ x }: { x: number }) => {
    prepCalls++;
    return x + 1;
  });
  const charge = node(
    { name: "charge", output: "y", retry: { attempts, initialDelayMs: 1, backoff: "constant" } },
    async ({ p }: { p: number }, ctx: NodeContext) => {
      calls.push(ctx.attempt);
      const event = events[next++] ?? "fail";
      if (event === "ok") return p * 2;
      if (event === "fail") throw new Error(`fail ${ctx.attempt}`);
      cutOff(event);
      await aborted(ctx.signal);
      throw new Error("cut off");
    },
  );
  const post = node({ name: "post", output: "z" }, ({ y }: { y: number }) => {
    postCalls++;
    return y + 1;
  });
  const graph = new Graph([prep, charge, post], { name: "attempts-ref" });
  let store = new MemoryCheckpointer({ policy: { durability: "sync" } });
  while (runs.length < maxRuns) {
    const runner = new Runner({ checkpointer: store, closeCheckpointer: false });
    const cut = new Promise<"stop" | "crash">((resolve) => (cutOff = resolve));
    const run = runner.run(graph, {
      workflowId: ID,
      ...(runs.length === 0 ? { values: { x: 1 } } : {}),
      errorHandling: "continue",
    });
    const first = await Promise.race([run, cut]);
    if (first === "stop") {
      await runner.stop(ID);
      expect((await run).status).toBe("stopped");
      runs.push("stopped");
    } else if (first === "crash") {
      const dead = await afterDeath(store, graph);
      await runner.close();
      await run;
      store = dead;
      runs.push("crashed");
    } else {
      const exhausted = isNodeExecutionError(first.error) && isAttemptsExhaustedError(first.error.cause);
      runs.push(first.status === "completed" ? "completed" : exhausted ? "exhausted" : "failed");
      if (first.status === "completed") expect(first.values).toEqual({ p: 2, y: 4, z: 5 });
      await runner.close();
      break;
    }
    await runner.close();
  }
  return { calls, runs, prep: prepCalls, post: postCalls };
}

const schedules = fc.record({
  attempts: fc.integer({ min: 1, max: 5 }),
  events: fc.array(fc.constantFrom<CallEvent>("fail", "fail", "ok", "stop", "crash", "crash"), { maxLength: 12 }),
});

describe("durable attempts: the engine follows the reference model", () => {
  it("the model's bounds: at most attempts + 1 calls per step, plus one per stop", () => {
    fc.assert(
      fc.property(schedules, ({ attempts, events }) => {
        const { calls, runs } = referenceAttempts(attempts, events);
        const stops = runs.filter((r) => r === "stopped").length;
        expect(calls.length).toBeLessThanOrEqual(attempts + 1 + stops);
        expect(Math.max(...calls, 1)).toBeLessThanOrEqual(attempts);
      }),
      { numRuns: 2_000, seed: 3535 },
    );
  });

  it("same attempt numbers, run ends and calls on 300 random schedules of failures, stops and deaths", async () => {
    let crashes = 0;
    let stops = 0;
    await fc.assert(
      fc.asyncProperty(schedules, async ({ attempts, events }) => {
        const expected = referenceAttempts(attempts, events);
        const actual = await engineAttempts(attempts, events);
        expect({ calls: actual.calls, runs: actual.runs }).toEqual(expected);
        // Finished steps are never run again; the node after the retried one runs once it succeeded.
        expect(actual.prep).toBe(1);
        expect(actual.post).toBe(expected.runs.at(-1) === "completed" ? 1 : 0);
        crashes += expected.runs.filter((r) => r === "crashed").length;
        stops += expected.runs.filter((r) => r === "stopped").length;
      }),
      { numRuns: 300, seed: 3536 },
    );
    // The schedules did exercise both kinds of interruption, many times.
    expect(crashes).toBeGreaterThan(100);
    expect(stops).toBeGreaterThan(100);
  }, 240_000);
});
