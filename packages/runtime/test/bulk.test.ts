// Bad input to the bulk operations is refused before anything is read or written, with the option named and how
// to fix it. (What they do on every checkpointer is in the conformance kit's engine suite.)
import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { describe, expect, it } from "vitest";
import { isInvalidOptionError, Runner } from "../src/index.js";

const graph = new Graph(
  [
    node({ output: "y" }, async function double({ x }: { x: number }) {
      return x * 2;
    }),
  ],
  {
    name: "double",
  },
);

async function refusal(call: () => Promise<unknown>): Promise<{ option: string; message: string }> {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isInvalidOptionError(error)) throw new Error(`expected an InvalidOptionError, got ${String(error)}`);
  return { option: error.option, message: error.message };
}

describe("bulk operations: bad input", () => {
  const runner = new Runner({ checkpointer: new MemoryCheckpointer() });

  it("names a bad filter field and what it takes", async () => {
    expect(await refusal(() => runner.stopMany({ status: "done" as never }))).toEqual({
      option: "filter.status",
      message: expect.stringContaining(
        "a status or a non-empty array of them (running, completed, paused, stopped, failed)",
      ),
    });
    const typo = await refusal(() => runner.deleteMany({ idprefix: "x" } as never));
    expect(typo.option).toBe("filter.idprefix");
    expect(typo.message).toContain("one of status, graph, idPrefix");
    const date = await refusal(() => runner.deleteMany({ updatedBefore: new Date("soon") }));
    expect(date).toMatchObject({ option: "filter.updatedBefore" });
    expect(date.message).toContain("must be a valid Date");
    expect((await refusal(() => runner.stopMany({ status: [] }))).option).toBe("filter.status");
  });

  it("names a bad option", async () => {
    expect((await refusal(() => runner.deleteMany({}, { pageSize: 0 }))).message).toContain(
      "option 'pageSize' must be an integer from 1 to 1000, got number 0",
    );
    expect((await refusal(() => runner.stopMany({}, { limit: 2.5 }))).option).toBe("limit");
    expect((await refusal(() => runner.deleteMany({}, { info: 1 } as never))).message).toContain(
      "one of dryRun, pageSize, limit, onProgress",
    );
    expect((await refusal(() => runner.resumeMany("double" as never, {}))).option).toBe("graph");
  });

  it("says a runner without a checkpointer has nothing to act on", async () => {
    const bare = new Runner();
    const refused = await refusal(() => bare.stopMany({ status: "paused" }));
    expect(refused.option).toBe("checkpointer");
    expect(refused.message).toContain("a Runner created with a checkpointer");
  });

  it("a dry run on a store counts without writing", async () => {
    const checkpointer = new MemoryCheckpointer();
    const local = new Runner({ checkpointer });
    await local.run(graph, { values: { x: 1 }, workflowId: "a" });
    await local.run(graph, { values: { x: 2 }, workflowId: "b" });
    const before = await checkpointer.listWorkflows();
    expect(await local.deleteMany({ graph: "double" }, { dryRun: true })).toEqual({
      dryRun: true,
      matched: 2,
      done: 0,
      ids: ["a", "b"],
      skipped: [],
      failed: [],
    });
    expect(await checkpointer.listWorkflows()).toEqual(before);
  });
});
