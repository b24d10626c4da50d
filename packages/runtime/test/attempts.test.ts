// Durable retry attempts on the memory store: a stop during attempt 2 resumes at attempt 2, an attempt start is stored
// before the call in `sync` durability, and the rules a resume applies to the history a crash leaves (it is copied
// from a live run into a store whose holder is gone: exactly what a killed process leaves behind; the real SIGKILL
// runs per backend in the conformance kit).
import { type Durability, MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, type NodeContext, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { type GraphEvent, isAttemptsExhaustedError, isNodeExecutionError, Runner } from "../src/index.js";

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve())));

/**
 * `charge(x) → y` with `retry: { attempts: 4 }`. Every call is logged with its attempt; `plan(attempt)` says what the
 * call does: "fail", "ok", or "hang" (wait for the node's signal, then fail).
 */
function chargeGraph(plan: (attempt: number) => "fail" | "ok" | "hang") {
  const calls: number[] = [];
  const hanging = new Map<number, ReturnType<typeof deferred<void>>>();
  const charge = node(
    { name: "charge", output: "y", retry: { attempts: 4, initialDelayMs: 1, backoff: "constant" } },
    async ({ x }: { x: number }, ctx: NodeContext) => {
      calls.push(ctx.attempt);
      const what = plan(ctx.attempt);
      if (what === "ok") return x * 10;
      if (what === "hang") {
        hanging.get(ctx.attempt)?.resolve(undefined);
        await aborted(ctx.signal);
      }
      throw new Error(`bank down (attempt ${ctx.attempt})`);
    },
  );
  const graph = new Graph([charge], { name: "pay" });
  /** Resolves when a call of this attempt hangs. */
  const hangs = (attempt: number) => {
    const d = deferred<void>();
    hanging.set(attempt, d);
    return d.promise;
  };
  return { graph, calls, hangs };
}

const nodeSteps = async (cp: MemoryCheckpointer, id: string) =>
  (await cp.getSteps(id)).map((s) => ({ status: s.status, attempt: s.attempt }));

describe("a stop during attempt 2 of 4", () => {
  // "exit" too: a stopped run ends, and its buffered steps (the stopped attempt's record among them) are written.
  for (const durability of ["sync", "async", "exit"] as const satisfies readonly Durability[]) {
    it(`resumes at attempt 2, not 1 (${durability})`, async () => {
      const cp = new MemoryCheckpointer({ policy: { durability } });
      let resumed = false;
      const g = chargeGraph((a) => (a === 1 ? "fail" : a === 2 ? (resumed ? "fail" : "hang") : "ok"));
      const runner = new Runner({ checkpointer: cp, closeCheckpointer: false });
      const hang = g.hangs(2);
      const first = runner.run(g.graph, { workflowId: "stop-2", values: { x: 4 }, errorHandling: "continue" });
      await hang;
      expect(await runner.stop("stop-2")).toBe(true);
      expect((await first).status).toBe("stopped");
      expect(g.calls).toEqual([1, 2]);
      // The stop's record says which attempt it cut off; the attempt under way was stored before it.
      expect(await nodeSteps(cp, "stop-2")).toEqual([{ status: "stopped", attempt: { number: 2, repeats: 0 } }]);

      resumed = true;
      const second = await runner.run(g.graph, { workflowId: "stop-2" });
      expect(second.status).toBe("completed");
      expect(second.values).toEqual({ y: 40 });
      expect(g.calls).toEqual([1, 2, 2, 3]);
      expect((await nodeSteps(cp, "stop-2")).at(-1)).toEqual({
        status: "completed",
        attempt: { number: 3, repeats: 0 },
      });
      await runner.close();
    });
  }

  it("stopped twice in attempt 4: each resume repeats it (a stop is not the node's failure), then the budget ends", async () => {
    const cp = new MemoryCheckpointer();
    let runs = 0;
    const g = chargeGraph((a) => (a < 4 ? "fail" : runs < 3 ? "hang" : "fail"));
    const runner = new Runner({ checkpointer: cp, closeCheckpointer: false });
    for (runs = 1; runs <= 2; runs++) {
      const hang = g.hangs(4);
      const run = runner.run(g.graph, { workflowId: "stop-4", ...(runs === 1 ? { values: { x: 1 } } : {}) });
      await hang;
      await runner.stop("stop-4");
      expect((await run).status).toBe("stopped");
    }
    const last = await runner.run(g.graph, { workflowId: "stop-4", errorHandling: "continue" });
    expect(last.status).toBe("failed");
    expect(isNodeExecutionError(last.error) && (last.error.cause as Error).message).toBe("bank down (attempt 4)");
    expect(g.calls).toEqual([1, 2, 3, 4, 4, 4]);
    await runner.close();
  });
});

describe("inside a nested graph", () => {
  it("a stop during attempt 2 of the child's node resumes the child at attempt 2", async () => {
    const cp = new MemoryCheckpointer({ policy: { durability: "sync" } });
    let resumed = false;
    const g = chargeGraph((a) => (a === 1 ? "fail" : a === 2 && !resumed ? "hang" : "ok"));
    const outer = new Graph([g.graph.asNode({ name: "pay" })], { name: "outer" });
    const runner = new Runner({ checkpointer: cp, closeCheckpointer: false });
    const hang = g.hangs(2);
    const first = runner.run(outer, { workflowId: "nested", values: { x: 2 } });
    await hang;
    await runner.stop("nested");
    expect((await first).status).toBe("stopped");
    expect(await nodeSteps(cp, "nested/pay")).toEqual([{ status: "stopped", attempt: { number: 2, repeats: 0 } }]);
    resumed = true;
    const second = await runner.run(outer, { workflowId: "nested" });
    expect(second.status).toBe("completed");
    expect(second.get("pay/y")).toBe(20);
    expect(g.calls).toEqual([1, 2, 2]);
    await runner.close();
  });
});

describe("sync durability", () => {
  it("stores each attempt start before the function is called, and the result replaces it", async () => {
    const cp = new MemoryCheckpointer({ policy: { durability: "sync" } });
    const seen: Array<{ attempt: number; stored: unknown[] }> = [];
    const charge = node(
      { name: "charge", output: "y", retry: { attempts: 3, initialDelayMs: 1 } },
      async ({ x }: { x: number }, ctx: NodeContext) => {
        const stored = (await cp.getSteps("sync-1")).map(({ status, attempt, superstep, values }) => ({
          status,
          attempt,
          superstep,
          values,
        }));
        seen.push({ attempt: ctx.attempt, stored });
        if (ctx.attempt < 3) throw new Error("not yet");
        return x + 1;
      },
    );
    const runner = new Runner({ checkpointer: cp });
    const result = await runner.run(new Graph([charge]), { workflowId: "sync-1", values: { x: 1 } });
    expect(result.values).toEqual({ y: 2 });
    const running = (number: number) => [
      { status: "running", attempt: { number, repeats: 0 }, superstep: 2, values: {} },
    ];
    expect(seen).toEqual([
      { attempt: 1, stored: running(1) },
      { attempt: 2, stored: running(2) },
      { attempt: 3, stored: running(3) },
    ]);
    const steps = await cp.getSteps("sync-1");
    expect(steps.map(({ status, attempt, superstep, values }) => ({ status, attempt, superstep, values }))).toEqual([
      { status: "completed", attempt: { number: 3, repeats: 0 }, superstep: 2, values: { y: 2 } },
    ]);
    await runner.close();
  });

  it("an attempt start the store refuses (the lease was taken) ends the run with LeaseLostError: no call, no retry", async () => {
    const cp = new MemoryCheckpointer({ policy: { durability: "sync" } });
    const calls: number[] = [];
    const charge = node(
      { name: "charge", output: "y", retry: { attempts: 4, initialDelayMs: 1 } },
      async ({ x }: { x: number }, ctx: NodeContext) => {
        calls.push(ctx.attempt);
        // Another process takes the workflow while attempt 1 runs: the start of attempt 2 is fenced.
        const lease = (await cp.getWorkflow("taken"))!.lease!;
        await cp.releaseWorkflow("taken", { owner: lease.owner, epoch: lease.epoch });
        await cp.claimWorkflow("taken", { owner: "thief", ttlMs: 60_000 });
        throw new Error(`down ${x}`);
      },
    );
    const runner = new Runner({ checkpointer: cp });
    const error = await runner.run(new Graph([charge]), { workflowId: "taken", values: { x: 1 } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ _tag: "LeaseLostError", workflowId: "taken" });
    expect(calls).toEqual([1]);
    // Only attempt 1's start is stored: the refused write stored nothing, and nothing after it was written.
    expect(await nodeSteps(cp, "taken")).toEqual([{ status: "running", attempt: { number: 1, repeats: 0 } }]);
    await runner.close();
  });

  it("nodes without retry store nothing before they run and no attempt after", async () => {
    const cp = new MemoryCheckpointer({ policy: { durability: "sync" } });
    const plain = node({ name: "plain", output: "y", timeoutMs: 1_000 }, async ({ x }: { x: number }) => x);
    const runner = new Runner({ checkpointer: cp });
    await runner.run(new Graph([plain]), { workflowId: "plain-1", values: { x: 1 } });
    const steps = await cp.getSteps("plain-1");
    expect(steps.map((s) => [s.status, "attempt" in s])).toEqual([["completed", false]]);
    await runner.close();
  });
});

/**
 * Runs `graph` until its call of `attempt` hangs, and returns a new store holding exactly what the store held then,
 * with the workflow held by a process that is gone (its lease expired): the state a SIGKILL at that moment leaves.
 */
async function crashedAt(
  graph: Graph,
  hangs: Promise<void>,
  id: string,
  values: Record<string, unknown>,
  from?: MemoryCheckpointer,
): Promise<MemoryCheckpointer> {
  const source = from ?? new MemoryCheckpointer({ policy: { durability: "sync" } });
  const runner = new Runner({ checkpointer: source, closeCheckpointer: false });
  const run = runner.run(graph, { workflowId: id, values, errorHandling: "continue" });
  await hangs;
  const steps = await source.getSteps(id, { includeInputs: true });
  await runner.close();
  await run.catch(() => undefined);
  const dead = new MemoryCheckpointer({ policy: { durability: "sync" } });
  await dead.startWorkflow(
    { id, graphName: graph.name ?? "graph", graphHash: graph.definitionHash },
    { owner: "killed", ttlMs: 1 },
    steps,
  );
  await new Promise((r) => setTimeout(r, 5));
  return dead;
}

describe("after a crash during an attempt", () => {
  it("attempt 2 of 4 runs again under its number, then 3 and 4, then the node fails: 1,2 | 2,3,4", async () => {
    let after = false;
    const g = chargeGraph((a) => (a === 2 && !after ? "hang" : "fail"));
    const cp = await crashedAt(g.graph, g.hangs(2), "crash-2", { x: 1 });
    expect(await nodeSteps(cp, "crash-2")).toEqual([{ status: "running", attempt: { number: 2, repeats: 0 } }]);
    after = true;
    const runner = new Runner({ checkpointer: cp });
    const result = await runner.run(g.graph, { workflowId: "crash-2", errorHandling: "continue" });
    expect(result.status).toBe("failed");
    expect(g.calls).toEqual([1, 2, 2, 3, 4]);
    expect(isNodeExecutionError(result.error) && (result.error.cause as Error).message).toBe("bank down (attempt 4)");
    // The killed run's record stays in the history (its superstep is not the resumed run's); the result is the last.
    expect(await nodeSteps(cp, "crash-2")).toEqual([
      { status: "running", attempt: { number: 2, repeats: 0 } },
      { status: "failed", attempt: { number: 4, repeats: 1 } },
    ]);
    await runner.close();
  });

  it("cut short twice, attempt 2 counts as failed: 1,2 | 2 | 3,4 — never more than one repeat", async () => {
    let crashes = 0;
    const g = chargeGraph((a) => (a === 2 && crashes < 2 ? "hang" : a === 4 ? "ok" : "fail"));
    const once = await crashedAt(g.graph, g.hangs(2), "crash-twice", { x: 2 });
    crashes = 1;
    const twice = await crashedAt(g.graph, g.hangs(2), "crash-twice", {}, once);
    expect(g.calls).toEqual([1, 2, 2]);
    expect((await nodeSteps(twice, "crash-twice")).at(-1)).toEqual({
      status: "running",
      attempt: { number: 2, repeats: 1 },
    });
    crashes = 2;
    const runner = new Runner({ checkpointer: twice });
    const result = await runner.run(g.graph, { workflowId: "crash-twice" });
    expect(result.values).toEqual({ y: 20 });
    expect(g.calls).toEqual([1, 2, 2, 3, 4]);
    await runner.close();
  });

  it("the last attempt cut short twice: the node fails with AttemptsExhaustedError and is not called again", async () => {
    let crashes = 0;
    const g = chargeGraph((a) => (a === 4 && crashes < 2 ? "hang" : "fail"));
    const once = await crashedAt(g.graph, g.hangs(4), "exhausted", { x: 3 });
    crashes = 1;
    const twice = await crashedAt(g.graph, g.hangs(4), "exhausted", {}, once);
    crashes = 2;
    expect(g.calls).toEqual([1, 2, 3, 4, 4]);
    const errors: GraphEvent[] = [];
    const onEvent = (e: GraphEvent) => void (e.type === "NodeError" && errors.push(e));
    const runner = new Runner({ checkpointer: twice, eventProcessors: [{ onEvent }] });
    const result = await runner.run(g.graph, { workflowId: "exhausted", errorHandling: "continue" });
    expect(result.status).toBe("failed");
    expect(g.calls).toEqual([1, 2, 3, 4, 4]);
    const cause = isNodeExecutionError(result.error) ? result.error.cause : undefined;
    expect(isAttemptsExhaustedError(cause)).toBe(true);
    expect(cause).toMatchObject({ _tag: "AttemptsExhaustedError", nodeName: "charge", attempts: 4 });
    expect((cause as Error).message).toContain("Node 'charge' of workflow 'exhausted' has no attempt left");
    expect((cause as Error).message).toContain("ctx.idempotencyKey");
    expect(errors).toMatchObject([{ nodeName: "charge", attempt: 4, willRetry: false, error: cause }]);
    expect((await nodeSteps(twice, "exhausted")).at(-1)).toEqual({
      status: "failed",
      attempt: { number: 4, repeats: 1 },
    });
    // A resume of the failed workflow is an operator's decision: the node starts over with a fresh budget.
    const again = await runner.run(g.graph, { workflowId: "exhausted", errorHandling: "continue" });
    expect(again.status).toBe("failed");
    expect(g.calls).toEqual([1, 2, 3, 4, 4, 1, 2, 3, 4]);
    await runner.close();
  });

  it("new input values start a new step: the budget starts over at attempt 1", async () => {
    let after = false;
    const g = chargeGraph((a) => (a === 3 && !after ? "hang" : after && a === 1 ? "ok" : "fail"));
    const cp = await crashedAt(g.graph, g.hangs(3), "new-inputs", { x: 1 });
    after = true;
    const runner = new Runner({ checkpointer: cp });
    const result = await runner.run(g.graph, { workflowId: "new-inputs", values: { x: 5 } });
    expect(result.values).toEqual({ y: 50 });
    expect(g.calls).toEqual([1, 2, 3, 1]);
    await runner.close();
  });
});
