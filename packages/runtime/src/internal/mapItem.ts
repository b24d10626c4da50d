/**
 * One item of a map another process dispatched (see `mapDispatch.ts`), run in this process by the runner exactly as
 * the in-process path runs it. It sits beside the runner, not the executors: executors reach child runs only
 * through `EngineHost.spawn`.
 */
import type { CheckpointStoreService } from "@graph/checkpoint/effect";
import { type Graph, GraphConfigError } from "@graph/core";
import * as Effect from "effect/Effect";
import type { InvalidOptionError } from "../errors.js";
import type { MapItemRunOptions } from "../options.js";
import type { RunResult } from "../RunResult.js";
import { checkChildIdRoom } from "./childIds.js";
import type { RunControl, Shared } from "./context.js";
import { Engine } from "./engine.js";
import { checkMapItemOptions } from "./options.js";
import type { RunError } from "./outcome.js";
import { RunConfig } from "./runConfig.js";

const itemShareds = new WeakMap<Shared, Shared>();

/** The runner's Shared for dispatched items: the same limits and counters, but their own maps run where they run. */
function itemSharedOf(shared: Shared): Shared {
  let item = itemShareds.get(shared);
  if (item === undefined) {
    item = Object.create(shared, { mapDispatcher: { value: undefined } }) as Shared;
    itemShareds.set(shared, item);
  }
  return item;
}

/**
 * Runs the item: a child workflow (no lease of its own) whose writes carry the root's fence, so a run tree that
 * lost its root's lease writes nothing more. `control` is the item's stop boundary (the runner's `close()` stops
 * it; so does `options.signal`).
 */
export function runMapItem(
  graph: Graph,
  options: MapItemRunOptions,
  store: CheckpointStoreService | undefined,
  shared: Shared,
  control: RunControl,
): Effect.Effect<RunResult, RunError | GraphConfigError> {
  return Effect.suspend((): Effect.Effect<RunResult, RunError | GraphConfigError> => {
    if (store === undefined)
      return Effect.fail(new GraphConfigError("runMapItem() needs a runner with a checkpointer."));
    try {
      checkMapItemOptions(options);
      checkChildIdRoom("runMapItem()", options.workflowId, graph);
    } catch (error) {
      return Effect.fail(error as InvalidOptionError);
    }
    const signal = options.signal;
    const onAbort = () => control.stop(signal?.reason);
    if (signal?.aborted === true) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    const config = RunConfig.item(options, itemSharedOf(shared), control);
    return new Engine(graph, config).run().pipe(
      Effect.tap(() => store.flush(options.workflowId)),
      Effect.ensuring(Effect.sync(() => signal?.removeEventListener("abort", onAbort))),
    );
  });
}
