import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, interrupt, node } from "@graph/core";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { type InvalidAnswerError, isInvalidAnswerError, Runner } from "../src/index.js";

const decision = z.object({ approved: z.boolean(), note: z.string().max(5).optional() });

/** draft → approval (its answer checked by `decision`) → send. */
function approvalGraph(calls: string[]) {
  const draft = node({ output: "draft" }, function draft({ topic }: { topic: string }) {
    calls.push("draft");
    return `about ${topic}`;
  });
  const approval = interrupt({ name: "approval", input: "draft", response: "decision", schema: decision });
  const send = node(
    { output: "sent", inputs: { draft: z.string(), decision: z.object({ approved: z.boolean() }).passthrough() } },
    function send({ draft, decision }) {
      calls.push("send");
      return decision.approved ? `SENT ${draft}` : "DISCARDED";
    },
  );
  return new Graph([draft, approval, send], { name: "approvalSchema" });
}

async function refusal(run: Promise<unknown>): Promise<InvalidAnswerError> {
  const e = await run.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(isInvalidAnswerError(e)).toBe(true);
  return e as InvalidAnswerError;
}

describe("interrupt({ schema })", () => {
  it("a resume with an answer the schema refuses fails with its issues and stores nothing; a good one resumes", async () => {
    const calls: string[] = [];
    const graph = approvalGraph(calls);
    const cp = new MemoryCheckpointer();
    const runner = new Runner({ checkpointer: cp });
    const paused = await runner.run(graph, { workflowId: "w1", values: { topic: "refunds" } });
    expect(paused.status).toBe("paused");
    expect(paused.pause).toMatchObject({ nodeName: "approval", responseKey: "decision", value: "about refunds" });
    const before = { workflow: await cp.getWorkflow("w1"), steps: await cp.getSteps("w1", { includeInputs: true }) };

    const bad = await refusal(
      runner.run(graph, { workflowId: "w1", values: { decision: { approved: "yes", note: "far too long" } as never } }),
    );
    expect(bad).toMatchObject({
      _tag: "InvalidAnswerError",
      workflowId: "w1",
      nodeName: "approval",
      responseKey: "decision",
      issues: [
        "approved: Invalid input: expected boolean, received string",
        "note: Too big: expected string to have <=5 characters",
      ],
    });
    expect(bad.message).toContain("Nothing was saved; the workflow still waits.");
    expect({ workflow: await cp.getWorkflow("w1"), steps: await cp.getSteps("w1", { includeInputs: true }) }).toEqual(
      before,
    );

    const done = await runner.run(graph, { workflowId: "w1", values: { decision: { approved: true, note: "ok" } } });
    expect(done.status).toBe("completed");
    expect(done.values.sent).toBe("SENT about refunds");
    expect(calls).toEqual(["draft", "send"]);
    await runner.close();
  });

  it("an answer that skips the interrupt on a fresh run is checked too; the answer type flows to the run's values", async () => {
    const calls: string[] = [];
    const graph = approvalGraph(calls);
    const runner = new Runner();
    const bad = await refusal(runner.run(graph, { values: { topic: "x", decision: { approved: 1 } as never } }));
    expect(bad.issues).toEqual(["approved: Invalid input: expected boolean, received number"]);
    expect(calls).toEqual([]);
    const skipped = await runner.run(graph, { values: { topic: "x", decision: { approved: false } } });
    expect(skipped.values.sent).toBe("DISCARDED");
    // @ts-expect-error: the schema says `approved` is a boolean
    void runner.run(graph, { values: { topic: "x", decision: { approved: "yes" } } }).catch(() => undefined);
    expectTypeOf(skipped.values.decision).toEqualTypeOf<{ approved: boolean; note?: string | undefined } | undefined>();
    await runner.close();
  });

  it("exports the answer's JSON Schema for forms, and refuses a schema that is not zod", () => {
    const approval = interrupt({ name: "approval", input: "draft", response: "decision", schema: decision });
    expect(approval.answerSchema).toBe(decision);
    expect(approval.answerJsonSchema()).toMatchObject({
      type: "object",
      properties: { approved: { type: "boolean" }, note: { type: "string", maxLength: 5 } },
      required: ["approved"],
    });
    expect(interrupt({ name: "plain", input: "draft", response: "ok" }).answerJsonSchema()).toBeUndefined();
    expect(() =>
      interrupt({ name: "bad", input: "draft", response: "ok", schema: { type: "object" } as never }),
    ).toThrow("Interrupt 'bad' has a schema that is not a zod schema");
    // Renamed copies keep the schema.
    expect(approval.withName("approval2").answerSchema).toBe(decision);
  });
});
