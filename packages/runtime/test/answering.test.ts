import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, interrupt, node } from "@graph/core";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  InvalidOptionError,
  isUnexpectedAnswerError,
  type PauseInfo,
  type PauseRef,
  Runner,
  type RunOptions,
  type UnexpectedAnswerError,
} from "../src/index.js";

/** draft → first (asks `ok1`) → second (asks `ok2`) → publish: two pauses, one after the other. */
function twoStepGraph(calls: string[]) {
  const draft = node({ output: "draft" }, function draft({ topic }: { topic: string }) {
    calls.push("draft");
    return `about ${topic}`;
  });
  const first = interrupt({ name: "first", input: "draft", response: "ok1" });
  const second = interrupt({ name: "second", input: "ok1", response: "ok2" });
  const publish = node({ output: "published" }, function publish({ ok1, ok2 }: { ok1: string; ok2: string }) {
    calls.push(`publish:${ok1}+${ok2}`);
    return `${ok1}+${ok2}`;
  });
  return new Graph([draft, first, second, publish], { name: "twoStep" });
}

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

describe("answers that name their pause (answering)", () => {
  it("each pause has its own visit; an answer naming an earlier one is refused while a later one waits, nothing stored", async () => {
    const calls: string[] = [];
    const g = twoStepGraph(calls);
    const cp = new MemoryCheckpointer();
    const runner = new Runner({ checkpointer: cp });
    const first = await runner.run(g, { workflowId: "w1", values: { topic: "t" } });
    expect(first.pause).toMatchObject({ nodeName: "first", responseKey: "ok1", visit: 3 });
    const second = await runner.run(g, { workflowId: "w1", values: { ok1: "yes" }, answering: first.pause });
    expect(second.pause).toMatchObject({ nodeName: "second", responseKey: "ok2", visit: 6 });
    expect(second.pause?.visit).toBe((await cp.getWorkflow("w1"))?.lastSuperstep);
    const before = await stored(cp, "w1");
    // The second pause is answered under the first one's name (a stale tab): refused, even with the right key.
    const stale = await refusal(runner.run(g, { workflowId: "w1", values: { ok2: "late" }, answering: first.pause }));
    expect(stale.answers).toEqual(["ok2"]);
    expect(stale.pending).toEqual(["ok2"]);
    expect(stale.message).toBe(
      "Workflow 'w1' got an answer to the pause at 'first' (visit 3), but that pause is no longer pending: it is paused at 'second' (visit 6). " +
        "Another answer, an event, a timeout or a stop settled it first. The answer was refused and nothing was saved.\n" +
        "  How to fix: read the workflow again (runner.run(graph, { workflowId: 'w1' }) with no values returns its state) and answer its current pause, if any, naming that result.pause.",
    );
    expect(await stored(cp, "w1")).toStrictEqual(before);
    const done = await runner.run(g, { workflowId: "w1", values: { ok2: "go" }, answering: second.pause });
    expect(done.status).toBe("completed");
    expect(done.pause).toBeUndefined();
    expect(calls).toEqual(["draft", "publish:yes+go"]);
  });

  it("on a completed workflow: named answers are refused; plain values naming a response key still start a new turn", async () => {
    const calls: string[] = [];
    const g = twoStepGraph(calls);
    const cp = new MemoryCheckpointer();
    const runner = new Runner({ checkpointer: cp });
    const first = await runner.run(g, { workflowId: "w2", values: { topic: "t", ok1: "a" } });
    expect(first.pause).toMatchObject({ nodeName: "second" });
    await runner.run(g, { workflowId: "w2", values: { ok2: "b" }, answering: first.pause });
    const completed = await stored(cp, "w2");
    expect(completed.workflow?.status).toBe("completed");
    const late = await refusal(runner.run(g, { workflowId: "w2", values: { ok2: "late" }, answering: first.pause }));
    expect(late.pending).toEqual([]);
    expect(late.message).toContain("that pause is no longer pending: it is completed.");
    expect(await stored(cp, "w2")).toStrictEqual(completed);
    // The documented turn semantics are unchanged for values that do not name a pause: a new turn that skips the
    // interrupts whose responses are supplied.
    const turn = await runner.run(g, { workflowId: "w2", values: { ok1: "c", ok2: "d" } });
    expect(turn.status).toBe("completed");
    expect(calls).toEqual(["draft", "publish:a+b", "publish:c+d"]);
  });

  it("an unknown workflow or one that never paused: refused, nothing created", async () => {
    const g = twoStepGraph([]);
    const cp = new MemoryCheckpointer();
    const runner = new Runner({ checkpointer: cp });
    const none = await refusal(
      runner.run(g, {
        workflowId: "nobody",
        values: { topic: "t", ok1: "x" },
        answering: { nodeName: "first", visit: 1 },
      }),
    );
    expect(none.message).toContain("that pause is no longer pending: no such workflow is stored.");
    expect(await cp.getWorkflow("nobody")).toBeUndefined();
  });

  it("the option is checked: a pause without a visit, no workflowId, no checkpointer → InvalidOptionError", async () => {
    const g = twoStepGraph([]);
    const withStore = new Runner({ checkpointer: new MemoryCheckpointer() });
    const bare = new Runner();
    const cases: Array<[Runner, RunOptions, string]> = [
      [withStore, { workflowId: "w", answering: { nodeName: "first" } }, "option 'answering' must be the pause"],
      [withStore, { workflowId: "w", answering: { nodeName: "", visit: 1 } }, "option 'answering' must be the pause"],
      [withStore, { workflowId: "w", answering: { nodeName: "first", visit: 1.5 } }, "option 'answering' must be"],
      [withStore, { workflowId: "w", answering: "first" as never }, "option 'answering' must be the pause"],
      [withStore, { answering: { nodeName: "first", visit: 1 } }, "used with the workflowId of the paused workflow"],
      [bare, { workflowId: "w", answering: { nodeName: "first", visit: 1 } }, "used with a checkpointer"],
    ];
    for (const [runner, options, message] of cases) {
      const error = await runner.run(g, { values: { topic: "t" }, ...options }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, JSON.stringify(options)).toBeInstanceOf(InvalidOptionError);
      expect((error as InvalidOptionError).option).toBe("answering");
      expect((error as Error).message).toContain(message);
    }
  });

  it("types: a run's pause is what answering takes", () => {
    expectTypeOf<PauseInfo>().toMatchTypeOf<PauseRef>();
    expectTypeOf<PauseInfo["visit"]>().toEqualTypeOf<number | undefined>();
    expectTypeOf<RunOptions["answering"]>().toEqualTypeOf<PauseRef | undefined>();
  });
});
