import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, interrupt, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { isUnexpectedAnswerError, Runner, type UnexpectedAnswerError } from "../src/index.js";

/** draft → first (asks `ok1`) → second (asks `ok2`) → publish: two pauses, one after the other. */
function twoStepGraph(calls: string[]) {
  const draft = node({ output: "draft" }, function draft({ topic }: { topic: string }) {
    calls.push("draft");
    return `about ${topic}`;
  });
  const first = interrupt({ name: "first", input: "draft", response: "ok1" });
  const second = interrupt({ name: "second", input: "ok1", response: "ok2" });
  const publish = node({ output: "published" }, function publish({ ok1, ok2 }: { ok1: string; ok2: string }) {
    calls.push("publish");
    return `${ok1}+${ok2}`;
  });
  return new Graph([draft, first, second, publish], { name: "twoStep" });
}

/** Everything the store holds for a workflow, to compare before and after a refused run. */
async function stored(cp: MemoryCheckpointer, id: string) {
  return { workflow: await cp.getWorkflow(id), steps: await cp.getSteps(id, { includeInputs: true }) };
}

async function refusal(run: Promise<unknown>): Promise<UnexpectedAnswerError> {
  const e = await run.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(isUnexpectedAnswerError(e)).toBe(true);
  return e as UnexpectedAnswerError;
}

describe("an answer for a pause that is not pending", () => {
  it("an answer for a later interrupt is refused, nothing is stored, and it is not taken later", async () => {
    const calls: string[] = [];
    const g = twoStepGraph(calls);
    const cp = new MemoryCheckpointer();
    const runner = new Runner({ checkpointer: cp });
    const r1 = await runner.run(g, { workflowId: "w", values: { topic: "cats" } });
    expect(r1.status).toBe("paused");
    expect(r1.pause?.responseKey).toBe("ok1");
    const before = await stored(cp, "w");

    const e = await refusal(runner.run(g, { workflowId: "w", values: { ok2: "early" } }));
    expect(e._tag).toBe("UnexpectedAnswerError");
    expect(e.workflowId).toBe("w");
    expect(e.answers).toEqual(["ok2"]);
    expect(e.pending).toEqual(["ok1"]);
    expect(e.message).toContain("Workflow 'w' got an answer for 'ok2'");
    expect(e.message).toContain("paused waiting for 'ok1' (at 'first')");
    expect(e.message).toContain("How to fix: answer the pending pause");
    expect(await stored(cp, "w")).toEqual(before);

    // Together with the pending answer, the early one is still refused (it would be kept for `second`).
    const both = await refusal(runner.run(g, { workflowId: "w", values: { ok1: "yes", ok2: "early" } }));
    expect(both.answers).toEqual(["ok2"]);
    expect(await stored(cp, "w")).toEqual(before);

    // The refused answer was not kept: `second` pauses and asks.
    const r2 = await runner.run(g, { workflowId: "w", values: { ok1: "yes" } });
    expect(r2.status).toBe("paused");
    expect(r2.pause?.responseKey).toBe("ok2");
    const r3 = await runner.run(g, { workflowId: "w", values: { ok2: "sure" } });
    expect(r3.status).toBe("completed");
    expect(r3.values.published).toBe("yes+sure");
    expect(calls).toEqual(["draft", "publish"]);

    // Completed, new values are the next turn: a value for an interrupt's response skips it there, as on a first
    // run — nothing is refused.
    const next = await runner.run(g, { workflowId: "w", values: { ok1: "again", ok2: "too" } });
    expect(next.status).toBe("completed");
    expect(next.values.published).toBe("again+too");
    await runner.close();
  });

  it("on a first run a value for an interrupt's response skips it (its documented meaning), it is not refused", async () => {
    const cp = new MemoryCheckpointer();
    const runner = new Runner({ checkpointer: cp });
    const r = await runner.run(twoStepGraph([]), { workflowId: "new", values: { topic: "x", ok1: "pre" } });
    expect(r.status).toBe("paused");
    expect(r.pause?.responseKey).toBe("ok2");
    await runner.close();
  });

  it("several pending pauses are answered at once", async () => {
    const a = interrupt({ name: "a", input: "x", response: "ra" });
    const b = interrupt({ name: "b", input: "x", response: "rb" });
    const join = node({ output: "joined" }, function join({ ra, rb }: { ra: string; rb: string }) {
      return `${ra}${rb}`;
    });
    const g = new Graph([a, b, join], { name: "parallel" });
    const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
    expect((await runner.run(g, { workflowId: "p", values: { x: 1 } })).status).toBe("paused");
    const r = await runner.run(g, { workflowId: "p", values: { ra: "A", rb: "B" } });
    expect(r.status).toBe("completed");
    expect(r.values.joined).toBe("AB");
    await runner.close();
  });

  it("without a checkpointer the answer comes with the original values (no store says what is pending)", async () => {
    const runner = new Runner();
    const r = await runner.run(twoStepGraph([]), { values: { topic: "t", ok1: "a", ok2: "b" } });
    expect(r.status).toBe("completed");
    expect(r.values.published).toBe("a+b");
  });
});
