import { Cause, Effect, Exit } from "effect";
import { describe, expect, it } from "vitest";
import type { CheckpointStoreService } from "../src/effect.js";
import { CheckpointStore, checkpointStoreLayer, makeCheckpointStore } from "../src/effect.js";
import type { Checkpointer, CheckpointPolicy, StepRecord } from "../src/index.js";
import { CheckpointError, guardCheckpointer, MemoryCheckpointer, WorkflowConflictError } from "../src/index.js";

const step = (workflowId: string, index: number, values: Record<string, unknown> = { n: index }): StepRecord => ({
  workflowId,
  superstep: index,
  nodeName: `n${index % 3}`,
  index,
  status: "completed",
  inputVersions: {},
  values,
  truncated: false,
  startedAt: new Date(0),
  completedAt: new Date(1),
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Method = Exclude<
  keyof Checkpointer,
  "policy" | "saveSteps" | "saveStepBatch" | "startWorkflow" | "finishWorkflow"
>;

interface Recorder {
  readonly adapter: Checkpointer;
  readonly inner: MemoryCheckpointer;
  readonly calls: Record<string, number>;
  /** `method:workflowId:index` for every write that reached the inner checkpointer, in order. */
  readonly log: string[];
  /** Per-method hooks run before delegating (delay, throw…). */
  readonly hooks: Partial<Record<Method, (...args: never[]) => unknown>>;
}

/** Wraps a MemoryCheckpointer, counting calls and allowing failure/delay injection. */
function recorder(policy?: Partial<CheckpointPolicy>): Recorder {
  const inner = new MemoryCheckpointer(policy === undefined ? {} : { policy });
  const calls: Record<string, number> = {};
  const log: string[] = [];
  const hooks: Recorder["hooks"] = {};
  const methods: Method[] = [
    "setup",
    "createWorkflow",
    "claimWorkflow",
    "releaseWorkflow",
    "saveStep",
    "updateWorkflow",
    "getWorkflow",
    "getSteps",
    "getState",
    "getCheckpoint",
    "listWorkflows",
    "deleteWorkflow",
    "close",
  ];
  const adapter: Record<string, unknown> = { policy: inner.policy };
  for (const method of methods) {
    adapter[method] = async (...args: unknown[]) => {
      calls[method] = (calls[method] ?? 0) + 1;
      await (hooks[method] as ((...a: unknown[]) => unknown) | undefined)?.(...args);
      const result = await (inner[method] as (...a: unknown[]) => Promise<unknown>)(...args);
      if (method === "saveStep") {
        const saved = args[0] as StepRecord;
        log.push(`saveStep:${saved.workflowId}:${saved.index}`);
      } else if (method === "updateWorkflow") {
        log.push(`updateWorkflow:${String(args[0])}`);
      }
      return result;
    };
  }
  return { adapter: adapter as unknown as Checkpointer, inner, calls, log, hooks };
}

const scoped = <A, E>(
  adapter: Checkpointer,
  body: (store: CheckpointStoreService) => Effect.Effect<A, E>,
  policy?: Partial<CheckpointPolicy>,
) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(makeCheckpointStore(adapter, policy === undefined ? {} : { policy }), (store) => body(store)),
    ),
  );

const failureOf = async <A, E>(effect: Effect.Effect<A, E>): Promise<E> => {
  const exit = await Effect.runPromiseExit(effect);
  if (Exit.isSuccess(exit)) throw new Error("expected a failure");
  // Typed failure only: never a defect or an interruption.
  const failure = Cause.failureOption(exit.cause);
  if (failure._tag === "None") throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`);
  return failure.value;
};

const workflow = (id: string) => ({ id, graphName: "g", graphHash: "h" });

describe("CheckpointStore guard", () => {
  it("runs setup once under 10 concurrent callers, and before the first operation", async () => {
    const rec = recorder();
    rec.hooks.setup = () => sleep(20);
    await scoped(rec.adapter, (store) =>
      Effect.gen(function* () {
        yield* Effect.all(
          Array.from({ length: 10 }, () => store.setup),
          { concurrency: "unbounded" },
        );
        yield* Effect.all(
          Array.from({ length: 10 }, (_, i) => store.createWorkflow(workflow(`w${i}`))),
          { concurrency: "unbounded" },
        );
        yield* store.setup;
      }),
    );
    expect(rec.calls["setup"]).toBe(1);
  });

  it("runs setup once when the first calls are ordinary operations", async () => {
    const rec = recorder();
    rec.hooks.setup = () => sleep(10);
    await scoped(rec.adapter, (store) =>
      Effect.all(
        Array.from({ length: 10 }, (_, i) => store.getWorkflow(`w${i}`)),
        { concurrency: "unbounded" },
      ),
    );
    expect(rec.calls["setup"]).toBe(1);
  });

  it("retries a failed setup on the next call", async () => {
    const rec = recorder();
    let failures = 1;
    rec.hooks.setup = () => {
      if (failures-- > 0) throw new Error("database starting up");
    };
    await scoped(rec.adapter, (store) =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(store.setup);
        expect(error._tag).toBe("CheckpointError");
        yield* store.setup;
        yield* store.setup;
      }),
    );
    expect(rec.calls["setup"]).toBe(2);
  });

  it("closes the adapter once: explicit close, repeated close and scope close", async () => {
    const rec = recorder();
    await scoped(rec.adapter, (store) =>
      Effect.gen(function* () {
        yield* store.createWorkflow(workflow("w"));
        yield* Effect.all([store.close, store.close, store.close], { concurrency: "unbounded" });
        yield* store.close;
      }),
    );
    expect(rec.calls["close"]).toBe(1);
    const scopeOnly = recorder();
    await scoped(scopeOnly.adapter, (store) => store.createWorkflow(workflow("w")));
    expect(scopeOnly.calls["close"]).toBe(1);
  });

  it("can leave the adapter open", async () => {
    const rec = recorder();
    await Effect.runPromise(
      Effect.scoped(Effect.flatMap(makeCheckpointStore(rec.adapter, { closeAdapter: false }), (store) => store.close)),
    );
    expect(rec.calls["close"]).toBeUndefined();
  });

  it("fails operations after close with CheckpointError", async () => {
    const rec = recorder();
    const error = await failureOf(
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* makeCheckpointStore(rec.adapter);
          yield* store.close;
          return yield* store.saveStep(step("w", 0));
        }),
      ),
    );
    expect(error._tag).toBe("CheckpointError");
    expect((error as CheckpointError).operation).toBe("saveStep");
  });

  it("classifies adapter errors: typed errors pass through, anything else becomes CheckpointError", async () => {
    const rec = recorder();
    const conflict = new WorkflowConflictError({ workflowId: "w", heldBy: "x" });
    const ownError = new CheckpointError({ message: "own", workflowId: "w" });
    const boom = new Error("connection reset");
    rec.hooks.getWorkflow = (id: never) => {
      switch (id as string) {
        case "conflict":
          throw conflict;
        case "own":
          throw ownError;
        case "plain":
          throw boom;
        default:
          // eslint-disable-next-line @typescript-eslint/only-throw-error
          throw "a string";
      }
    };
    const syncThrowing: Checkpointer = {
      ...rec.adapter,
      getState: () => {
        throw new TypeError("not async");
      },
      getSteps: () => undefined as never,
    };
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* makeCheckpointStore(syncThrowing);
          expect(yield* Effect.flip(store.getWorkflow("conflict"))).toBe(conflict);
          expect(yield* Effect.flip(store.getWorkflow("own"))).toBe(ownError);

          const plain = (yield* Effect.flip(store.getWorkflow("plain"))) as CheckpointError;
          expect(plain._tag).toBe("CheckpointError");
          expect(plain.operation).toBe("getWorkflow");
          expect(plain.workflowId).toBe("plain");
          expect(plain.cause).toBe(boom);
          expect(plain.message).toContain("connection reset");

          const thrownString = (yield* Effect.flip(store.getWorkflow("string"))) as CheckpointError;
          expect(thrownString._tag).toBe("CheckpointError");
          expect(thrownString.cause).toBe("a string");

          const sync = (yield* Effect.flip(store.getState("w"))) as CheckpointError;
          expect(sync._tag).toBe("CheckpointError");
          expect(sync.operation).toBe("getState");
          expect(sync.cause).toBeInstanceOf(TypeError);
        }),
      ),
    );
  });

  it("surfaces adapter failures as typed failures, never defects", async () => {
    const rec = recorder();
    rec.hooks.listWorkflows = () => {
      throw new RangeError("boom");
    };
    const error = await failureOf(
      Effect.scoped(Effect.flatMap(makeCheckpointStore(rec.adapter), (s) => s.listWorkflows())),
    );
    expect(error._tag).toBe("CheckpointError");
  });

  it("rejects an invalid merged policy with CheckpointError", async () => {
    const error = await failureOf(
      Effect.scoped(
        makeCheckpointStore(new MemoryCheckpointer(), { policy: { durability: "exit", retention: "full" } }),
      ),
    );
    expect(error._tag).toBe("CheckpointError");
  });

  it("provides the store through a layer", async () => {
    const program = Effect.gen(function* () {
      const store = yield* CheckpointStore;
      yield* store.createWorkflow(workflow("w"));
      return (yield* store.getWorkflow("w"))?.id;
    });
    const id = await Effect.runPromise(program.pipe(Effect.provide(checkpointStoreLayer(new MemoryCheckpointer()))));
    expect(id).toBe("w");
  });
});

describe("CheckpointStore durability", () => {
  it("sync: saveStep completes after the adapter wrote the step", async () => {
    const rec = recorder();
    rec.hooks.saveStep = () => sleep(5);
    await scoped(
      rec.adapter,
      (store) =>
        Effect.gen(function* () {
          expect(store.policy.durability).toBe("sync");
          yield* store.createWorkflow(workflow("w"));
          yield* store.saveStep(step("w", 0));
          expect(rec.log).toEqual(["saveStep:w:0"]);
          const error = yield* Effect.flip(store.saveStep(step("w", 1, { f: () => 1 })));
          expect(error._tag).toBe("CheckpointError");
          expect((error as CheckpointError).path).toBe("values.f");
        }),
      { durability: "sync" },
    );
  });

  it("async: saveStep returns before writing; one writer writes in order; nothing is lost before close", async () => {
    const rec = recorder();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    rec.hooks.saveStep = async () => {
      await gate;
      await sleep(Math.random() * 3);
    };
    const ids = ["a", "b", "c"];
    await scoped(rec.adapter, (store) =>
      Effect.gen(function* () {
        expect(store.policy.durability).toBe("async");
        for (const id of ids) yield* store.createWorkflow(workflow(id));
        for (let i = 0; i < 60; i++) yield* store.saveStep(step(ids[i % 3]!, i));
        // Every saveStep returned although no write has completed yet.
        expect(rec.log).toEqual([]);
        open();
      }),
    );
    expect(rec.log).toEqual(Array.from({ length: 60 }, (_, i) => `saveStep:${ids[i % 3]}:${i}`));
    // Concurrent savers: still one writer, and every step arrives.
    const concurrent = recorder();
    concurrent.hooks.saveStep = () => sleep(1);
    await scoped(concurrent.adapter, (store) =>
      Effect.gen(function* () {
        yield* store.createWorkflow(workflow("w"));
        yield* Effect.all(
          Array.from({ length: 30 }, (_, i) => store.saveStep(step("w", i))),
          { concurrency: "unbounded" },
        );
      }),
    );
    expect(concurrent.log).toHaveLength(30);
    expect(concurrent.calls["saveStep"]).toBe(30);
  });

  it("async: reads and updates of a workflow see its earlier saves", async () => {
    const rec = recorder();
    rec.hooks.saveStep = () => sleep(10);
    await scoped(rec.adapter, (store) =>
      Effect.gen(function* () {
        yield* store.createWorkflow(workflow("w"));
        yield* store.saveStep(step("w", 0, { x: 1 }));
        yield* store.saveStep(step("w", 1, { y: 2 }));
        expect(yield* store.getState("w")).toEqual({ x: 1, y: 2 });
        yield* store.saveStep(step("w", 2));
        yield* store.updateWorkflow("w", { status: "completed" });
        expect(rec.log).toEqual(["saveStep:w:0", "saveStep:w:1", "saveStep:w:2", "updateWorkflow:w"]);
      }),
    );
  });

  it("async: a failed write surfaces on the next saveStep of the workflow; later steps of it are skipped", async () => {
    const rec = recorder();
    await scoped(rec.adapter, (store) =>
      Effect.gen(function* () {
        yield* store.createWorkflow(workflow("w"));
        yield* store.createWorkflow(workflow("other"));
        yield* store.saveStep(step("w", 0));
        yield* store.saveStep(step("w", 1, { bad: Symbol("x") }));
        yield* store.saveStep(step("w", 2));
        yield* store.saveStep(step("other", 0));
        yield* store.flush("other");
        const error = yield* Effect.flip(store.saveStep(step("w", 3)));
        expect(error._tag).toBe("CheckpointError");
        expect((error as CheckpointError).path).toBe("values.bad");
        expect((error as CheckpointError).nodeName).toBe("n1");
        expect(rec.log).toEqual(["saveStep:w:0", "saveStep:other:0"]);
        // Reported once; the workflow can be written again afterwards.
        yield* store.saveStep(step("w", 4));
        yield* store.flush("w");
        expect(rec.log).toEqual(["saveStep:w:0", "saveStep:other:0", "saveStep:w:4"]);
      }),
    );
  });

  it("async: a failed write surfaces on flush, on updateWorkflow and on close", async () => {
    const rec = recorder();
    await scoped(rec.adapter, (store) =>
      Effect.gen(function* () {
        yield* store.createWorkflow(workflow("w"));
        yield* store.saveStep(step("w", 0, { bad: () => 1 }));
        expect((yield* Effect.flip(store.flush("w")))._tag).toBe("CheckpointError");
        yield* store.flush("w");
        yield* store.saveStep(step("w", 1, { bad: () => 1 }));
        expect((yield* Effect.flip(store.updateWorkflow("w", { status: "completed" })))._tag).toBe("CheckpointError");
        expect((yield* store.getWorkflow("w"))?.status).toBe("running");
        yield* store.saveStep(step("w", 2, { bad: () => 1 }));
        expect((yield* Effect.flip(store.flush()))._tag).toBe("CheckpointError");
        yield* store.saveStep(step("w", 3, { bad: () => 1 }));
        expect((yield* Effect.flip(store.close))._tag).toBe("CheckpointError");
      }),
    );
    expect(rec.calls["close"]).toBe(1);
  });

  it("async: unknown workflows and stale fences fail the same way", async () => {
    const rec = recorder();
    await scoped(rec.adapter, (store) =>
      Effect.gen(function* () {
        yield* store.saveStep(step("missing", 0));
        expect((yield* Effect.flip(store.flush("missing")))._tag).toBe("CheckpointError");
        yield* store.createWorkflow(workflow("w"));
        const lease = yield* store.claimWorkflow("w", { owner: "a", ttlMs: 10_000 });
        yield* store.saveStep(step("w", 0), { epoch: lease.epoch + 1 });
        expect((yield* Effect.flip(store.flush("w")))._tag).toBe("WorkflowConflictError");
      }),
    );
  });

  it("exit: writes nothing until flush, then writes in order; close flushes the rest", async () => {
    const rec = recorder({ durability: "exit" });
    await scoped(rec.adapter, (store) =>
      Effect.gen(function* () {
        expect(store.policy).toEqual({ durability: "exit", retention: "latest" });
        yield* store.createWorkflow(workflow("w"));
        yield* store.createWorkflow(workflow("v"));
        for (let i = 0; i < 5; i++) yield* store.saveStep(step("w", i));
        yield* store.saveStep(step("v", 0));
        yield* Effect.promise(() => sleep(20));
        expect(rec.log).toEqual([]);
        expect(yield* Effect.promise(() => rec.inner.getSteps("w"))).toEqual([]);
        yield* store.flush("w");
        expect(rec.log).toEqual([0, 1, 2, 3, 4].map((i) => `saveStep:w:${i}`));
        expect(yield* Effect.promise(() => rec.inner.getSteps("v"))).toEqual([]);
      }),
    );
    expect(rec.log.at(-1)).toBe("saveStep:v:0");
  });

  it("exit: a write failure is reported by flush", async () => {
    const rec = recorder({ durability: "exit" });
    await scoped(rec.adapter, (store) =>
      Effect.gen(function* () {
        yield* store.createWorkflow(workflow("w"));
        yield* store.saveStep(step("w", 0));
        yield* store.saveStep(step("w", 1, { bad: new WeakMap() }));
        yield* store.saveStep(step("w", 2));
        const error = (yield* Effect.flip(store.flush("w"))) as CheckpointError;
        expect(error.path).toBe("values.bad");
        expect(rec.log).toEqual(["saveStep:w:0"]);
        yield* store.flush("w");
      }),
    );
  });

  it("deleteWorkflow drops pending steps of the workflow and its children", async () => {
    const rec = recorder({ durability: "exit" });
    await scoped(rec.adapter, (store) =>
      Effect.gen(function* () {
        yield* store.createWorkflow(workflow("w"));
        yield* store.createWorkflow({ ...workflow("w/c"), parentId: "w" });
        yield* store.saveStep(step("w", 0));
        yield* store.saveStep(step("w/c", 0));
        yield* store.deleteWorkflow("w");
        yield* store.flush();
        expect(rec.log).toEqual([]);
        expect(yield* store.getWorkflow("w/c")).toBeUndefined();
      }),
    );
  });
});

describe("guardCheckpointer (Promise)", () => {
  it("memoizes setup and close, classifies errors, and is idempotent", async () => {
    const rec = recorder();
    const guarded = guardCheckpointer(rec.adapter);
    expect(guardCheckpointer(guarded)).toBe(guarded);
    await Promise.all(Array.from({ length: 10 }, () => guarded.setup()));
    expect(rec.calls["setup"]).toBe(1);
    rec.hooks.getWorkflow = () => {
      throw new Error("io");
    };
    await expect(guarded.getWorkflow("w")).rejects.toMatchObject({
      _tag: "CheckpointError",
      operation: "getWorkflow",
      workflowId: "w",
    });
    await Promise.all([guarded.close(), guarded.close()]);
    expect(rec.calls["close"]).toBe(1);
    expect(guarded.closed).toBe(true);
    await expect(guarded.getSteps("w")).rejects.toMatchObject({ _tag: "CheckpointError" });
  });
});
