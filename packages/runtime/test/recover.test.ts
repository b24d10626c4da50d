// The `recover` run option: a redelivered run (its process died) carries out a stop request stored for the workflow
// before any node starts; an explicit resume (no `recover`) still clears the request and runs.
import { INPUT_STEP, MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { isInvalidOptionError, Runner } from "../src/index.js";

function counted() {
  const calls: string[] = [];
  const first = node({ name: "first", output: "a" }, ({ x }: { x: number }) => {
    calls.push("first");
    return x + 1;
  });
  const second = node({ name: "second", output: "b" }, ({ a }: { a: number }) => {
    calls.push("second");
    return a * 10;
  });
  return { calls, graph: new Graph([first, second], { name: "counted" }) };
}

/** A workflow whose first process died after `first` (its lease expired) and that was then asked to stop. */
async function crashedThenStopped(cp: MemoryCheckpointer, graph: Graph, id: string): Promise<void> {
  // "first" finished and was saved; the process died before "second" (the run is left running, lease expired).
  await cp.createWorkflow({ id, graphName: "counted", graphHash: graph.definitionHash });
  const lease = await cp.claimWorkflow(id, { owner: "dead", ttlMs: 1 });
  const now = new Date();
  const step = { workflowId: id, inputVersions: {}, truncated: false, startedAt: now, completedAt: now };
  await cp.saveStep(
    {
      ...step,
      superstep: 0,
      nodeName: INPUT_STEP,
      index: 0,
      status: "completed",
      values: { x: 1 },
      kind: "input",
      turnStart: true,
    },
    { epoch: lease.epoch },
  );
  await cp.saveStep(
    { ...step, superstep: 1, nodeName: "first", index: 1, status: "completed", values: { a: 2 } },
    { epoch: lease.epoch },
  );
  await new Promise((resolve) => setTimeout(resolve, 5));
  const stopped = await cp.requestStop(id, { info: { why: "cancelled" } });
  expect(stopped?.stopRequested?.info).toEqual({ why: "cancelled" });
}

describe("recover", () => {
  it("a recovered run honours a pending stop request: ends stopped, no node starts, the request is handled", async () => {
    const cp = new MemoryCheckpointer();
    const { calls, graph } = counted();
    await crashedThenStopped(cp, graph, "wf-rec");
    const runner = new Runner({ checkpointer: cp, owner: "rescuer" });
    const r = await runner.run(graph, { workflowId: "wf-rec", recover: true });
    expect(r.status).toBe("stopped");
    expect(r.values).toEqual({ a: 2 });
    expect(calls).toEqual([]);
    // Nothing was written but the final status: the saved steps are the dead process's.
    const steps = await cp.getSteps("wf-rec", { includeInputs: true });
    expect(steps.map((s) => s.nodeName)).toEqual([INPUT_STEP, "first"]);
    const wf = (await cp.getWorkflow("wf-rec"))!;
    expect(wf.status).toBe("stopped");
    expect(wf.stopRequested).toBeUndefined();
    await runner.close();
  });

  it("the StopRequested event of a recovered run carries the stored request's info", async () => {
    const cp = new MemoryCheckpointer();
    const { calls, graph } = counted();
    await crashedThenStopped(cp, graph, "wf-rec-ev");
    const infos: unknown[] = [];
    const runner = new Runner({
      checkpointer: cp,
      eventProcessors: [{ onEvent: (e) => void (e.type === "StopRequested" && infos.push(e.info)) }],
    });
    const r = await runner.run(graph, { workflowId: "wf-rec-ev", recover: true });
    expect(r.status).toBe("stopped");
    expect(infos).toEqual([{ why: "cancelled" }]);
    expect(calls).toEqual([]);
    await runner.close();
  });

  it("without a stop request a recovered run resumes after the last saved step", async () => {
    const cp = new MemoryCheckpointer();
    const { calls, graph } = counted();
    await crashedThenStopped(cp, graph, "wf-rec-2");
    // An explicit resume cleared it: nothing pending any more.
    await cp.updateWorkflow("wf-rec-2", { stopRequested: null });
    const runner = new Runner({ checkpointer: cp });
    const r = await runner.run(graph, { workflowId: "wf-rec-2", recover: true });
    expect(r.status).toBe("completed");
    expect(r.values).toEqual({ a: 2, b: 20 });
    expect(calls).toEqual(["second"]);
    await runner.close();
  });

  it("an explicit resume (no recover) supersedes the pending request: it is cleared and the run finishes", async () => {
    const cp = new MemoryCheckpointer();
    const { calls, graph } = counted();
    await crashedThenStopped(cp, graph, "wf-fresh");
    const runner = new Runner({ checkpointer: cp });
    const r = await runner.run(graph, { workflowId: "wf-fresh" });
    expect(r.status).toBe("completed");
    expect(r.values).toEqual({ a: 2, b: 20 });
    expect(calls).toEqual(["second"]);
    const wf = (await cp.getWorkflow("wf-fresh"))!;
    expect(wf.status).toBe("completed");
    expect(wf.stopRequested).toBeUndefined();
    await runner.close();
  });

  it("rejects a recover option that is not a boolean, naming it", async () => {
    const runner = new Runner();
    const { graph } = counted();
    const error = await runner.run(graph, { values: { x: 1 }, recover: "yes" as never }).catch((e: unknown) => e);
    expect(isInvalidOptionError(error)).toBe(true);
    expect((error as { option: string }).option).toBe("recover");
    await runner.close();
  });
});
