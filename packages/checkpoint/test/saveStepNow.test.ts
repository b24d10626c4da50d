import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { makeCheckpointStore } from "../src/effect.js";
import type { CheckpointPolicy, StepRecord } from "../src/index.js";
import { CheckpointError, isCheckpointError, MemoryCheckpointer } from "../src/index.js";

const step = (workflowId: string, index: number, values: Record<string, unknown> = { n: index }): StepRecord => ({
  workflowId,
  superstep: index,
  nodeName: "n",
  index,
  status: "completed",
  inputVersions: {},
  values,
  truncated: false,
  startedAt: new Date(0),
  completedAt: new Date(1),
});

const withStore = <A>(
  checkpointer: MemoryCheckpointer,
  policy: Partial<CheckpointPolicy>,
  body: (store: Effect.Effect.Success<ReturnType<typeof makeCheckpointStore>>) => Effect.Effect<A, unknown>,
) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(makeCheckpointStore(checkpointer, { policy, closeAdapter: false }), (store) => body(store)),
    ),
  );

describe("CheckpointStore.saveStepNow", () => {
  it("async: queues at once (nothing written yet), written in order by flush", async () => {
    const memory = new MemoryCheckpointer();
    await withStore(memory, { durability: "async" }, (store) =>
      Effect.gen(function* () {
        yield* store.createWorkflow({ id: "w", graphName: "g", graphHash: "h" });
        expect(store.saveStepNow(step("w", 0))).toBeUndefined();
        expect(store.saveStepNow(step("w", 1))).toBeUndefined();
        expect(yield* Effect.promise(() => memory.getSteps("w"))).toEqual([]);
        yield* store.flush("w");
        const saved = yield* Effect.promise(() => memory.getSteps("w"));
        expect(saved.map((s) => [s.index, s.values])).toEqual([
          [0, { n: 0 }],
          [1, { n: 1 }],
        ]);
      }),
    );
  });

  it("copies the values when called: a later mutation is not stored", async () => {
    const memory = new MemoryCheckpointer();
    await withStore(memory, { durability: "exit", retention: "latest" }, (store) =>
      Effect.gen(function* () {
        yield* store.createWorkflow({ id: "w", graphName: "g", graphHash: "h" });
        const list = [1];
        expect(store.saveStepNow(step("w", 0, { list }))).toBeUndefined();
        list.push(2);
        yield* store.flush("w");
        expect((yield* Effect.promise(() => memory.getSteps("w")))[0]!.values).toEqual({ list: [1] });
      }),
    );
  });

  it("returns the CheckpointError of a value that cannot be stored, and queues nothing", async () => {
    const memory = new MemoryCheckpointer();
    await withStore(memory, { durability: "async" }, (store) =>
      Effect.gen(function* () {
        yield* store.createWorkflow({ id: "w", graphName: "g", graphHash: "h" });
        const error = store.saveStepNow(step("w", 0, { f: () => 1 }));
        expect(isCheckpointError(error)).toBe(true);
        expect(error).toMatchObject({ operation: "saveStep", workflowId: "w", path: "values.f" });
        yield* store.flush("w");
        expect(yield* Effect.promise(() => memory.getSteps("w"))).toEqual([]);
      }),
    );
  });

  it("after close: the closed-store CheckpointError; under sync durability: a TypeError", async () => {
    const memory = new MemoryCheckpointer();
    const closed = await withStore(memory, { durability: "async" }, (store) =>
      Effect.map(store.close, () => store.saveStepNow(step("w", 0))),
    );
    expect(closed).toBeInstanceOf(CheckpointError);
    expect(closed?.message).toContain("CheckpointStore.saveStep was called after the store was closed");
    await withStore(new MemoryCheckpointer(), { durability: "sync" }, (store) =>
      Effect.sync(() => {
        expect(() => store.saveStepNow(step("w", 0))).toThrow(
          new TypeError("CheckpointStore.saveStepNow needs durability 'async' or 'exit' (use saveStep)"),
        );
      }),
    );
  });
});
