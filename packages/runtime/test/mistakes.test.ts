import { MemoryCheckpointer } from "@graph/checkpoint";
import { END, Graph, interrupt, node, route } from "@graph/core";
import { describe, expect, it } from "vitest";
import {
  type GraphEvent,
  isInvalidOptionError,
  isMissingInputError,
  isNodeExecutionError,
  isRoutingError,
  isUnknownValueError,
  Runner,
} from "../src/index.js";

const later = <T>(value: T): Promise<T> => new Promise((resolve) => setTimeout(() => resolve(value), 1));

describe("silent mistakes become clear errors", () => {
  const draft = node({ name: "draft", output: "text" }, async ({ topic }: { topic: string }) =>
    later(`about ${topic}`),
  );
  const approve = interrupt({ name: "approve", input: "text", response: "verdict" });
  const publish = node(
    { name: "publish", output: "published" },
    ({ text, verdict }: { text: string; verdict: string }) => (verdict === "ok" ? text : ""),
  );
  const reviewed = new Graph([draft, approve, publish]);

  it("a misspelled resume key fails with the pending response key and a 'did you mean'", async () => {
    const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
    const paused = await runner.run(reviewed, { workflowId: "typo", values: { topic: "cats" } });
    expect(paused.status).toBe("paused");
    // @ts-expect-error: misspelled resume key 'verdcit' (a static error too)
    const error = await runner.run(reviewed, { workflowId: "typo", values: { verdcit: "ok" } }).catch((e) => e);
    expect(isUnknownValueError(error)).toBe(true);
    expect(error.unknown).toEqual(["verdcit"]);
    expect(error.message).toContain("is paused at 'approve', waiting for 'verdict'");
    expect(error.message).toContain("Did you mean 'verdict' instead of 'verdcit'?");
    // The right key still resumes.
    const done = await runner.run(reviewed, { workflowId: "typo", values: { verdict: "ok" } });
    expect(done.values.published).toBe("about cats");
    await runner.close();
  });

  const embed = node({ name: "embed", output: "embedding" }, async ({ query }: { query: string }) =>
    later([query.length]),
  );
  const retrieve = node(
    { name: "retrieve", output: "docs" },
    ({ embedding, topK = 2 }: { embedding: number[]; topK?: number }) =>
      Array.from({ length: topK }, (_, i) => `doc${embedding[0]}-${i}`),
  );
  const rag = new Graph([embed, retrieve]);

  it("an unknown run value is an error by default, with 'did you mean'", async () => {
    // @ts-expect-error: misspelled value 'topk' (a static error too)
    const error = await new Runner().run(rag, { values: { query: "hi", topk: 5 } }).catch((e) => e);
    expect(isUnknownValueError(error)).toBe(true);
    expect(error.unknown).toEqual(["topk"]);
    expect(error.message).toContain("Did you mean 'topK' instead of 'topk'?");
    expect(error.message).toContain('unknownValues: "ignore"');
  });

  it("unknownValues: 'ignore' drops unknown values with a Warning event (per run)", async () => {
    const events: GraphEvent[] = [];
    const runner = new Runner({ eventProcessors: [{ onEvent: (e) => void events.push(e) }] });
    // @ts-expect-error: 'topk' is not an input; the static check does not know about unknownValues
    const result = await runner.run(rag, { values: { query: "hi", topk: 5 }, unknownValues: "ignore" });
    expect(result.values.docs).toEqual(["doc2-0", "doc2-1"]);
    expect(events.filter((e) => e.type === "Warning")).toHaveLength(1);
  });

  it("a misspelled destructured parameter close to another node's output says which node produces it", async () => {
    const typo = node({ name: "retrieve", output: "docs" }, ({ embeding }: { embeding: number[] }) => embeding);
    // @ts-expect-error: 'embeding' is a required input nobody passes (a static error too)
    const error = await new Runner().run(new Graph([embed, typo]), { values: { query: "hi" } }).catch((e) => e);
    expect(isMissingInputError(error)).toBe(true);
    expect(error.missing).toEqual(["embeding"]);
    expect(error.message).toContain("did you mean 'embedding', produced by 'embed'?");
  });

  it("a loop's entry that reads a value produced later in the loop says so, and how to give the first run a value", async () => {
    const write = node({ name: "write", output: "draft" }, async ({ notes }: { notes: string[] }) =>
      later(notes.join("+")),
    );
    const critique = node(
      { name: "critique", output: "notes" },
      ({ draft, notes }: { draft: string; notes: string[] }) => [...notes, `${draft}!`],
    );
    const stop = route({ name: "stop", targets: ["write", END] }, ({ notes }: { notes: string[] }) =>
      notes.length > 3 ? END : "write",
    );
    const loop = new Graph([write, critique, stop]);
    // @ts-expect-error 'notes' (the loop's seed) is missing: the compile error this run makes at run time
    const error = await new Runner().run(loop, { values: {} }).catch((e) => e);
    expect(isMissingInputError(error)).toBe(true);
    expect(error.missing).toEqual(["notes"]);
    expect(error.message).toContain(
      "'notes' is produced by 'critique' inside a loop that starts at 'write', which reads it on its first run, before any node of the loop has produced it.",
    );
    expect(error.message).toContain("a default in the parameter list (({ notes = … }) => …), graph.bind({ notes: … })");
    expect(error.message).not.toContain("is not produced by any node");
    const bound = await new Runner().run(loop.bind({ notes: [] }), { values: {} });
    expect(bound.values.notes).toEqual(["!", "!!", "!+!!!", "!+!!+!+!!!!"]);
  });

  it("answering a pause on a runner without a checkpointer says resuming needs the original values or a checkpointer", async () => {
    const runner = new Runner();
    const paused = await runner.run(reviewed, { values: { topic: "cats" } });
    expect(paused.status).toBe("paused");
    const error = await runner
      .run(reviewed, { workflowId: paused.workflowId!, values: { verdict: "ok" } })
      .catch((e) => e);
    expect(isMissingInputError(error)).toBe(true);
    expect(error.message).toContain("this runner has no checkpointer, so the paused run kept nothing");
    expect(error.message).toContain("Resuming needs the original values again together with the answer");
    // Passing the original values with the answer works.
    const done = await runner.run(reviewed, { values: { topic: "cats", verdict: "ok" } });
    expect(done.values.published).toBe("about cats");
  });

  it("a failure inside a mapped item names the item: sq[7]/square", async () => {
    const square = node({ name: "square", output: "y" }, async ({ x }: { x: number }) => {
      if (x === 7) throw new Error("seven is unlucky");
      return later(x * x);
    });
    const sq = new Graph([square], { name: "sq" }).asNode().mapOver("x");
    const error = await new Runner()
      .run(new Graph([sq]), { values: { x: Array.from({ length: 10 }, (_, i) => i) } })
      .catch((e) => e);
    expect(isNodeExecutionError(error)).toBe(true);
    expect(error.nodeName).toBe("sq[7]/square");
    expect(error.message).toBe("Node 'sq[7]/square' failed: seven is unlucky");
  });

  it("a route returning an undeclared END fails the run with RoutingError", async () => {
    const pick = node({ name: "pick", output: "choice" }, () => "a");
    const gate = route({ name: "gate", targets: ["a"] }, ({ choice }: { choice: string }) => (choice ? END : "a"));
    const a = node({ name: "a", output: "out" }, ({ choice }: { choice: string }) => choice);
    const error = await new Runner().run(new Graph([pick, gate, a])).catch((e) => e);
    expect(isRoutingError(error)).toBe(true);
    expect(error.message).toContain("returned END, but END is not one of its targets ('a')");
  });
});

describe("crash and fuzz findings", () => {
  it("a function not declared async that returns a Promise is called once", async () => {
    let calls = 0;
    const add = node({ name: "add", output: "y" }, ({ x }: { x: number }) => {
      calls++;
      return later(x + 1);
    });
    const result = await new Runner().run(new Graph([add]), { values: { x: 1 } });
    expect(result.values.y).toBe(2);
    expect(calls).toBe(1);
  });

  it("…and when that Promise rejects the run fails once, with no unhandled rejection", async () => {
    let calls = 0;
    const boom = node({ name: "boom", output: "y" }, ({ x }: { x: number }) => {
      calls++;
      return Promise.reject(new Error(`boom ${x}`));
    });
    const error = await new Runner().run(new Graph([boom]), { values: { x: 1 } }).catch((e) => e);
    expect(isNodeExecutionError(error)).toBe(true);
    expect(error.message).toBe("Node 'boom' failed: boom 1");
    expect(calls).toBe(1);
  });

  it("a failed node emits NodeError once", async () => {
    const events: GraphEvent[] = [];
    const runner = new Runner({ eventProcessors: [{ onEvent: (e) => void events.push(e) }] });
    const fail = node({ name: "fail", output: "y" }, async ({ x }: { x: number }) => {
      await later(x);
      throw new Error("no");
    });
    await runner.run(new Graph([fail]), { values: { x: 1 }, errorHandling: "continue" });
    const errors = events.filter((e) => e.type === "NodeError");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ nodeName: "fail", attempt: 1, willRetry: false });
  });

  it("a run rejected for a bad option does not leave its workflowId marked live", async () => {
    const runner = new Runner();
    const g = new Graph([node({ name: "inc", output: "y" }, ({ x }: { x: number }) => x + 1)]);
    const bad = await runner
      .run(g, { workflowId: "wf", values: { x: 1 }, signal: "stop" as unknown as AbortSignal })
      .catch((e) => e);
    expect(isInvalidOptionError(bad)).toBe(true);
    expect(bad.option).toBe("signal");
    const ok = await runner.run(g, { workflowId: "wf", values: { x: 1 } });
    expect(ok.values.y).toBe(2);
  });

  it("Runner public entries validate their options and throw tagged errors", async () => {
    const g = new Graph([node({ name: "inc", output: "y" }, ({ x }: { x: number }) => x + 1)]);
    const thrown = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e as { _tag: string; option?: string; message: string };
      }
      throw new Error("nothing thrown");
    };
    expect(thrown(() => new Runner(null as never))).toMatchObject({ _tag: "InvalidOptionError", option: "options" });
    const garbage = thrown(() => new Runner({ checkpointer: { save: () => 1 } as never }));
    expect(garbage).toMatchObject({ _tag: "InvalidOptionError", option: "checkpointer" });
    expect(garbage.message).toContain("missing setup()");
    const runner = new Runner();
    for (const [options, option] of [
      [{ select: 5 }, "select"],
      [{ maxIterations: 0 }, "maxIterations"],
      [{ errorHandling: "loud" }, "errorHandling"],
      [{ values: 5 }, "values"],
      [{ workflowId: 5 }, "workflowId"],
    ] as const) {
      const error = await runner.run(g, { values: { x: 1 }, ...(options as object) }).catch((e) => e);
      expect(error).toMatchObject({ _tag: "InvalidOptionError", option });
    }
    const mapError = await runner.map(g, { mapOver: 5 as never, values: { x: [1] } }).catch((e) => e);
    expect(mapError).toMatchObject({ _tag: "InvalidOptionError", option: "mapOver" });
  });

  it("route and Graph options are validated too", () => {
    const configError = expect.objectContaining({ _tag: "GraphConfigError" });
    expect(() => route(null as never, () => "a")).toThrow(configError);
    expect(() => route({ name: "r", targets: "a" as never }, () => "a")).toThrow(configError);
    const a = node({ name: "a", output: "x" }, ({ y }: { y: number }) => y);
    expect(() => new Graph([a], { entrypoint: 5 as never })).toThrow(configError);
    expect(() => new Graph([a], { edges: 5 as never })).toThrow(configError);
    // Which option is wrong is in the message only (the error has no field for it).
    expect(() => route(null as never, () => "a")).toThrow(/route\(\) expects an options object/);
    expect(() => route({ name: "r", targets: "a" as never }, () => "a")).toThrow(/route\(\) needs targets: an array/);
    expect(() => new Graph([a], { entrypoint: 5 as never })).toThrow(/'entrypoint' must be a node name/);
    expect(() => new Graph([a], { edges: 5 as never })).toThrow(/'edges' must be an array/);
  });

  it("re-supplying an equal Map with object keys, Set of objects or invalid Date is not a change on resume", async () => {
    let calls = 0;
    const use = node(
      { name: "use", output: "seen" },
      ({ m, s, d }: { m: Map<object, number>; s: Set<object>; d: Date }) => {
        calls++;
        return `${m.size}/${s.size}/${String(d.getTime())}`;
      },
    );
    const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
    const values = () => ({
      m: new Map([[{ id: 1 }, 1]]),
      s: new Set([{ id: 1 }, { id: 2 }]),
      d: new Date(Number.NaN),
    });
    const g = new Graph([use]);
    await runner.run(g, { workflowId: "eq", values: values() });
    const again = await runner.run(g, { workflowId: "eq", values: values() });
    expect(again.values.seen).toBe("1/2/NaN");
    expect(calls).toBe(1);
    // A real change still counts.
    await runner.run(g, { workflowId: "eq", values: { ...values(), s: new Set([{ id: 3 }, { id: 2 }]) } });
    expect(calls).toBe(2);
    await runner.close();
  });
});
