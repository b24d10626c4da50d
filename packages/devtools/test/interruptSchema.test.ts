import { Graph, interrupt, node } from "@graph/core";
import { Runner } from "@graph/runtime";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Devtools } from "../src/index.js";
import { call, memory } from "./helpers.js";

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

/** draft → ⏸ approval (its own schema) → publish: no `answerSchemas` option anywhere. */
function declared() {
  const draft = node({ output: "draft" }, function draft({ topic }: { topic: string }) {
    return `About ${topic}`;
  });
  const approval = interrupt({
    name: "approval",
    input: "draft",
    response: "decision",
    schema: z.object({ approved: z.boolean() }),
  });
  const publish = node({ output: "published" }, function publish({ decision }: { decision: { approved: boolean } }) {
    return decision.approved ? "yes" : "no";
  });
  return new Graph([draft, approval, publish], { name: "declared" });
}

describe("devtools and interrupt({ schema })", () => {
  it("builds the answer form from the interrupt's schema and refuses an answer it does not match", async () => {
    const checkpointer = memory();
    const devtools = new Devtools({ graphs: [declared()], checkpointer });
    const runner = new Runner({ checkpointer, eventProcessors: [devtools], leaseTtlMs: 2000 });
    devtools.connect(runner);
    const port = Number(new URL(await devtools.listen()).port);
    opened.push({ close: () => runner.close() });
    const headers = { "x-devtools-token": devtools.token };

    expect(devtools.views[0]?.nodes.find((n) => n.path === "approval")?.answer).toEqual({
      kind: "schema",
      schema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { approved: { type: "boolean" } },
        required: ["approved"],
      },
    });
    await runner.run(declared(), { workflowId: "d1", values: { topic: "t" } });
    const before = await checkpointer.getSteps("d1", { includeInputs: true });
    const refused = await call(port, "/api/workflows/d1/answer", { body: { value: { approved: "yes" } }, headers });
    expect(refused.status).toBe(400);
    expect(refused.json()).toMatchObject({ issues: ["approved: Invalid input: expected boolean, received string"] });
    expect(await checkpointer.getSteps("d1", { includeInputs: true })).toEqual(before);
    const ok = await call(port, "/api/workflows/d1/answer", { body: { value: { approved: true } }, headers });
    expect(ok.status).toBe(202);
    for (let i = 0; i < 300 && (await checkpointer.getWorkflow("d1"))?.status !== "completed"; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect((await checkpointer.getState("d1")).published).toBe("yes");
  });
});
