import { Effect, Either } from "effect";
import { describe, expect, it } from "vitest";
import { makeCheckpointStore } from "../src/effect.js";
import type { Checkpointer, StepRecord } from "../src/index.js";
import { guardCheckpointer, isCheckpointError, isWorkflowConflictError, MemoryCheckpointer } from "../src/index.js";

const step = (workflowId: string, index: number): StepRecord => ({
  workflowId,
  superstep: index,
  nodeName: "n",
  index,
  status: "completed",
  inputVersions: {},
  values: { v: index },
  truncated: false,
  startedAt: new Date(0),
  completedAt: new Date(1),
});

/** Every method of the contract bound to `inner` (its private fields need the real receiver). */
function delegating(inner: MemoryCheckpointer): Checkpointer {
  const methods = [
    "setup",
    "createWorkflow",
    "claimWorkflow",
    "releaseWorkflow",
    "renewWorkflow",
    "requestStop",
    "getStopRequest",
    "saveStep",
    "updateWorkflow",
    "getWorkflow",
    "getSteps",
    "getState",
    "getCheckpoint",
    "listWorkflows",
    "deleteWorkflow",
    "close",
  ] as const;
  return Object.fromEntries(methods.map((m) => [m, inner[m].bind(inner)])) as unknown as Checkpointer;
}

describe("the Effect store: renewal and stop requests", () => {
  it("renewWorkflow, requestStop and getStopRequest do not wait for queued steps of the workflow", async () => {
    const inner = new MemoryCheckpointer();
    let releaseWrite: () => void = () => undefined;
    const blocked = new Promise<void>((resolve) => {
      releaseWrite = resolve;
    });
    // An adapter whose step writes hang until released: a slow database under the async writer.
    const adapter: Checkpointer = {
      ...delegating(inner),
      policy: { ...inner.policy, durability: "async" as const },
      saveStep: async (s: StepRecord, fence?: { epoch: number }) => {
        await blocked;
        return inner.saveStep(s, fence);
      },
    };
    const result = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* makeCheckpointStore(adapter);
          yield* store.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
          const lease = yield* store.claimWorkflow("wf", { owner: "a", ttlMs: 10_000 });
          yield* store.saveStep(step("wf", 0), { epoch: lease.epoch }); // queued behind the blocked write
          const renewed = yield* store.renewWorkflow("wf", lease, { ttlMs: 20_000 });
          const stopped = yield* store.requestStop("wf", { info: "now" });
          const seen = yield* store.getStopRequest("wf");
          releaseWrite();
          yield* store.flush("wf");
          return { renewed, stopped, seen, steps: yield* store.getSteps("wf") };
        }),
      ),
    );
    expect(result.renewed.epoch).toBe(1);
    expect(result.renewed.stopRequested).toBeUndefined();
    expect(result.stopped?.stopRequested?.info).toBe("now");
    expect(result.seen).toStrictEqual(result.stopped?.stopRequested);
    expect(result.steps).toHaveLength(1);
  });

  it("a lost lease fails the renewal with a typed WorkflowConflictError (reason lease-lost)", async () => {
    const outcome = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const store = yield* makeCheckpointStore(new MemoryCheckpointer(), { policy: { durability: "sync" } });
          yield* store.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
          const lease = yield* store.claimWorkflow("wf", { owner: "a", ttlMs: 10_000 });
          yield* store.releaseWorkflow("wf", lease);
          return yield* Effect.either(store.renewWorkflow("wf", lease, { ttlMs: 10_000 }));
        }),
      ),
    );
    expect(Either.isLeft(outcome)).toBe(true);
    const error = Either.isLeft(outcome) ? outcome.left : undefined;
    expect(isWorkflowConflictError(error) && error.reason).toBe("lease-lost");
  });

  it("the guard names the missing method of an adapter written for the older contract", async () => {
    const { renewWorkflow: _r, requestStop: _s, getStopRequest: _g, ...rest } = delegating(new MemoryCheckpointer());
    const old = rest as unknown as Checkpointer;
    const guarded = guardCheckpointer(old);
    const error = await guarded.renewWorkflow("wf", { owner: "a", epoch: 1 }, { ttlMs: 1000 }).catch((e: unknown) => e);
    expect(isCheckpointError(error)).toBe(true);
    expect((error as Error).message).toContain("has no renewWorkflow()");
    expect(await guarded.requestStop("wf").catch((e: unknown) => (e as Error).message)).toContain(
      "has no requestStop()",
    );
  });
});
