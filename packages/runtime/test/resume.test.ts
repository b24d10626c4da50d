import { MemoryCheckpointer } from "@graph/checkpoint";
import { END, Graph, interrupt, node, route } from "@graph/core";
import { describe, expect, it } from "vitest";
import { type GraphEvent, isVersionMismatchError, isWorkflowConflictError, Runner } from "../src/index.js";

function tracked() {
  const calls: string[] = [];
  const events: GraphEvent[] = [];
  const cp = new MemoryCheckpointer();
  const runner = new Runner({ checkpointer: cp, eventProcessors: [{ onEvent: (e) => void events.push(e) }] });
  return { calls, events, cp, runner };
}

describe("durable execution with a checkpointer", () => {
  it("saves one step per finished node, with only that node's values", async () => {
    const { cp, runner, events } = tracked();
    const a = node({ name: "a", output: "x" }, ({ seed }: { seed: number }) => seed + 1);
    const b = node({ name: "b", output: "y" }, ({ x }: { x: number }) => x * 2);
    await runner.run(new Graph([a, b], { name: "g" }), { values: { seed: 1 }, workflowId: "w" });
    // Changed in v2: getSteps() returns one record per executed node; the run's input record (kind "input") only
    // with includeInputs.
    const steps = await cp.getSteps("w");
    expect(steps.map((s) => [s.nodeName, s.status, s.values])).toEqual([
      ["a", "completed", { x: 2 }],
      ["b", "completed", { y: 4 }],
    ]);
    expect(steps[1]!.inputVersions).toEqual({ x: steps[0]!.index });
    const all = await cp.getSteps("w", { includeInputs: true });
    expect(all.map((s) => [s.kind ?? "node", s.nodeName, s.values])).toEqual([
      ["input", ".input", { seed: 1 }],
      ["node", "a", { x: 2 }],
      ["node", "b", { y: 4 }],
    ]);
    expect(all[0]!.turnStart).toBe(true);
    expect(all[0]!.decision).toBeUndefined();
    expect(events.filter((e) => e.type === "CheckpointSaved").map((e) => (e as { nodeName: string }).nodeName)).toEqual(
      ["a", "b"],
    );
    expect((await cp.getWorkflow("w"))?.status).toBe("completed");
    await runner.close();
  });

  it("re-running a finished workflow replays finished nodes and runs only stale ones", async () => {
    const { calls, runner, events } = tracked();
    const a = node({ name: "a", output: "x" }, ({ seed }: { seed: number }) => (calls.push("a"), seed + 1));
    const b = node({ name: "b", output: "y" }, ({ x, k }: { x: number; k: number }) => (calls.push("b"), x * k));
    const g = new Graph([a, b], { name: "g" });
    await runner.run(g, { values: { seed: 1, k: 2 }, workflowId: "w" });
    const again = await runner.run(g, { values: { k: 3 }, workflowId: "w" });
    expect(calls).toEqual(["a", "b", "b"]);
    expect(again.values).toEqual({ x: 2, y: 6 });
    expect(events.some((e) => e.type === "NodeEnd" && e.nodeName === "a" && e.replayed)).toBe(true);
    const same = await runner.run(g, { values: { k: 3 }, workflowId: "w" });
    expect(calls).toEqual(["a", "b", "b"]);
    expect(same.values).toEqual({ x: 2, y: 6 });
    await runner.close();
  });

  it("gate decisions are replayed on resume, not re-decided", async () => {
    const { calls, runner, events } = tracked();
    const decide = route(
      { name: "decide", targets: ["ask", "skip"] },
      ({ q }: { q: string }) => (calls.push("decide"), q === "ask" ? "ask" : "skip"),
    );
    const ask = interrupt({ name: "ask", input: "q", response: "answer" });
    const skip = node({ name: "skip", inputs: ["q"], output: "answer" }, () => "skipped");
    const done = node(
      { name: "done", output: "final" },
      ({ answer }: { answer: string }) => (calls.push("done"), `final:${answer}`),
    );
    const g = new Graph([decide, ask, skip, done], { name: "g" });
    const paused = await runner.run(g, { values: { q: "ask" }, workflowId: "w" });
    expect(paused.status).toBe("paused");
    const resumed = await runner.run(g, { values: { answer: "42" }, workflowId: "w" });
    expect(resumed.values.final).toBe("final:42");
    expect(calls).toEqual(["decide", "done"]);
    expect(events.some((e) => e.type === "RouteDecision" && e.gate === "decide" && e.replayed)).toBe(true);
    await runner.close();
  });

  it("a changed graph definition → VersionMismatchError unless force", async () => {
    const { runner } = tracked();
    const v1 = new Graph([node({ name: "a", output: "x" }, ({ seed }: { seed: number }) => seed + 1)], { name: "g" });
    const v2 = new Graph([node({ name: "a", output: "x" }, ({ seed }: { seed: number }) => seed + 2)], { name: "g" });
    await runner.run(v1, { values: { seed: 1 }, workflowId: "w" });
    const error = await runner.run(v2, { values: { seed: 5 }, workflowId: "w" }).catch((e) => e);
    expect(isVersionMismatchError(error)).toBe(true);
    expect(error).toMatchObject({ workflowId: "w", storedHash: v1.definitionHash, currentHash: v2.definitionHash });
    expect(error.message).toContain("force: true");
    const forced = await runner.run(v2, { values: { seed: 5 }, workflowId: "w", force: true });
    expect(forced.values.x).toBe(7);
    await runner.close();
  });

  it("checkpoint + new id forks a workflow", async () => {
    const { cp, runner, calls } = tracked();
    const a = node({ name: "a", output: "x" }, ({ seed }: { seed: number }) => (calls.push("a"), seed + 1));
    const b = node({ name: "b", output: "y" }, ({ x, k }: { x: number; k: number }) => (calls.push("b"), x * k));
    const g = new Graph([a, b], { name: "g" });
    await runner.run(g, { values: { seed: 1, k: 2 }, workflowId: "orig" });
    const checkpoint = await cp.getCheckpoint("orig");
    const fork = await runner.run(g, { values: { k: 10 }, workflowId: "fork", checkpoint: checkpoint! });
    expect(fork.values).toEqual({ x: 2, y: 20 });
    expect(calls).toEqual(["a", "b", "b"]);
    expect((await cp.getState("orig")).y).toBe(4);
    expect((await cp.getState("fork")).y).toBe(20);
    await runner.close();
  });

  it("two live runs of one workflow id → WorkflowConflictError (same runner and two runners)", async () => {
    const cp = new MemoryCheckpointer();
    const slow = node({ name: "slow", output: "x" }, async ({ seed }: { seed: number }) => {
      await new Promise((r) => setTimeout(r, 50));
      return seed;
    });
    const g = new Graph([slow], { name: "g" });
    const one = new Runner({ checkpointer: cp });
    const two = new Runner({ checkpointer: cp });
    const first = one.run(g, { values: { seed: 1 }, workflowId: "w" });
    const sameRunner = await one.run(g, { values: { seed: 2 }, workflowId: "w" }).catch((e) => e);
    expect(isWorkflowConflictError(sameRunner)).toBe(true);
    await new Promise((r) => setTimeout(r, 10));
    const otherRunner = await two.run(g, { values: { seed: 3 }, workflowId: "w" }).catch((e) => e);
    expect(isWorkflowConflictError(otherRunner)).toBe(true);
    expect((await first).values.x).toBe(1);
    // After the first run released its lease the workflow can be run again.
    expect((await two.run(g, { values: { seed: 4 }, workflowId: "w" })).values.x).toBe(4);
    await one.close();
    await two.close();
  });

  it("a crashed holder's lease expires and the workflow can be resumed", async () => {
    const cp = new MemoryCheckpointer();
    await cp.createWorkflow({ id: "w", graphName: "g", graphHash: "x" });
    // Long enough that the first try surely meets the live lease on a loaded machine.
    await cp.claimWorkflow("w", { owner: "dead-process", ttlMs: 600 });
    const g = new Graph([node({ name: "a", output: "x" }, ({ seed }: { seed: number }) => seed)], { name: "g" });
    const runner = new Runner({ checkpointer: cp });
    const early = await runner.run(g, { values: { seed: 1 }, workflowId: "w", force: true }).catch((e) => e);
    expect(isWorkflowConflictError(early)).toBe(true);
    await new Promise((r) => setTimeout(r, 650));
    expect((await runner.run(g, { values: { seed: 1 }, workflowId: "w", force: true })).values.x).toBe(1);
    await runner.close();
  });

  it("a loop resumed after a failure continues where it stopped", async () => {
    const { calls, runner } = tracked();
    let failAt = 3;
    const increment = node({ name: "increment", output: "count" }, ({ count }: { count: number }) => {
      calls.push(`inc${count}`);
      if (count === failAt) throw new Error("flaky");
      return count + 1;
    });
    const check = route({ name: "check", targets: ["increment", END] }, ({ count }: { count: number }) =>
      count >= 5 ? END : "increment",
    );
    const g = new Graph([increment, check], { name: "loop" });
    const failed = await runner.run(g, { values: { count: 0 }, workflowId: "w", errorHandling: "continue" });
    expect(failed.status).toBe("failed");
    failAt = -1;
    const resumed = await runner.run(g, { workflowId: "w" });
    expect(resumed.status).toBe("completed");
    expect(resumed.values.count).toBe(5);
    expect(calls).toEqual(["inc0", "inc1", "inc2", "inc3", "inc3", "inc4"]);
    await runner.close();
  });
});

describe("resume regressions", () => {
  it("a crash between a loop's first iteration and its gate's first decision resumes at the gate", async () => {
    const calls: string[] = [];
    const increment = node(
      { name: "increment", output: "count" },
      ({ count }: { count: number }) => (calls.push("increment"), count + 1),
    );
    const check = route(
      { name: "check", targets: ["increment", END] },
      ({ count }: { count: number }) => (calls.push("check"), count >= 3 ? END : "increment"),
    );
    const graph = new Graph([increment, check], { name: "loop" }).bind({ count: 0 });
    const cp = new MemoryCheckpointer({ policy: { durability: "sync" } });
    const t = new Date();
    await cp.createWorkflow({ id: "wf", graphName: "loop", graphHash: graph.definitionHash });
    await cp.updateWorkflow("wf", { status: "running" });
    await cp.saveStep({
      workflowId: "wf",
      superstep: 1,
      nodeName: "increment",
      index: 1,
      status: "completed",
      inputVersions: { count: 0 },
      values: { count: 1 },
      truncated: false,
      startedAt: t,
      completedAt: t,
    });
    const runner = new Runner({ checkpointer: cp });
    const r = await runner.run(graph, { workflowId: "wf" });
    expect(calls).toEqual(["check", "increment", "check", "increment", "check"]);
    expect(r.values.count).toBe(3);
    await runner.close();
  });

  it("a new turn of a finished gated loop runs the loop again", async () => {
    const increment = node(
      { name: "increment", output: "count" },
      ({ count, step }: { count: number; step: number }) => count + step,
    );
    const check = route(
      { name: "check", targets: ["increment", END] },
      ({ count, limit }: { count: number; limit: number }) => (count >= limit ? END : "increment"),
    );
    const graph = new Graph([increment, check], { name: "loop" }).bind({ count: 0, step: 1 });
    const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
    expect((await runner.run(graph, { workflowId: "t", values: { limit: 2 } })).values.count).toBe(2);
    expect((await runner.run(graph, { workflowId: "t", values: { limit: 5 } })).values.count).toBe(5);
    await runner.close();
  });

  it("a replayed GraphNode still has its nested RunResult", async () => {
    const y = node({ name: "y", output: "y" }, ({ x }: { x: number }) => x + 1);
    const inner = new Graph([y], { name: "inner" });
    const approval = interrupt({ name: "approval", input: "y", response: "ok" });
    const g = new Graph([inner.asNode(), approval], { name: "outer" });
    const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
    expect((await runner.run(g, { workflowId: "n", values: { x: 1 } })).status).toBe("paused");
    const r = await runner.run(g, { workflowId: "n", values: { ok: "yes" } });
    expect(r.status).toBe("completed");
    expect(r.get("inner/y")).toBe(2);
    await runner.close();
  });
});
