import type { CheckpointStoreService } from "@graph/checkpoint/effect";
import type { Graph } from "@graph/core";
import * as Effect from "effect/Effect";
import type { RunResult } from "../RunResult.js";
import type { RunnerCore } from "./runner.js";
import { Schedules } from "./schedules.js";

/** A queued firing whose predecessor runs in another process looks at the store this often. */
const POLL_MS = 1_000;

/**
 * The schedules of a runner, wired to its core: firings run through `run` (the runner's own `run`, so they are
 * tracked, stopped by `close()`, and their events reach the event processors); claims and status reads go to its
 * store.
 */
export function makeSchedules(
  core: RunnerCore,
  run: (graph: Graph, workflowId: string, values: Readonly<Record<string, unknown>>) => Promise<RunResult>,
): Schedules {
  const withStore = <A>(use: (store: CheckpointStoreService) => Effect.Effect<A, unknown>, none: A): Promise<A> =>
    Effect.runPromise(
      Effect.flatMap(core.store() as Effect.Effect<CheckpointStoreService | undefined, unknown>, (store) =>
        store === undefined ? Effect.succeed(none) : use(store),
      ),
    );
  // Without a store, the runner's own memory is the only record of which firings ran.
  const claimed = new Set<string>();
  return new Schedules({
    clock: core.time.clock,
    pollMs: POLL_MS,
    hasStore: core.hasCheckpointer,
    run,
    claim: (graph, workflowId) => {
      if (!core.hasCheckpointer) {
        if (claimed.has(workflowId)) return Promise.resolve(false);
        claimed.add(workflowId);
        return Promise.resolve(true);
      }
      return withStore(
        (store) =>
          Effect.map(
            store.createWorkflow({ id: workflowId, graphName: graph.name ?? "graph", graphHash: graph.definitionHash }),
            (r) => r.created,
          ),
        true,
      );
    },
    exists: (workflowId) =>
      withStore((store) => Effect.map(store.getWorkflow(workflowId), (w) => w !== undefined), false),
    finished: (workflowId) =>
      withStore(
        (store) =>
          Effect.map(
            store.getWorkflow(workflowId),
            (w) => w === undefined || (w.status !== "running" && w.status !== "paused"),
          ),
        true,
      ),
  });
}
