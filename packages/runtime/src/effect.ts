/**
 * The Effect-facing API of `@graph/runtime`: the same operations as the Promise `Runner`, as Effects whose failures
 * are the typed errors.
 *
 * @module
 */
import type { Graph, GraphConfigError } from "@graph/core";
import { Effect, Stream } from "effect";
import type { GraphEvent } from "./events.js";
import { RunControl, Subscriber } from "./internal/context.js";
import type { RunError } from "./internal/engine.js";
import { type MapOptions, RunnerCore, type RunnerOptions, type RunOptions } from "./internal/runner.js";
import type { MapResult, RunResult } from "./RunResult.js";

/**
 * Every typed failure of a run.
 *
 * @example
 * ```ts
 * const handled = runner.run(graph, { values }).pipe(Effect.catchTag("MissingInputError", (e) => Effect.succeed(e.missing)));
 * ```
 */
export type RunFailure = RunError | GraphConfigError;

/**
 * The Effect runner: build it with {@link makeRunner} inside a `Scope` (closing the scope closes the runner).
 *
 * @example
 * ```ts
 * const program = Effect.scoped(Effect.gen(function* () {
 *   const runner = yield* makeRunner();
 *   const result = yield* runner.run(graph, { values: { x: 1 } });
 *   return result.values;
 * }));
 * ```
 */
export interface EffectRunner {
  run(graph: Graph, options?: RunOptions): Effect.Effect<RunResult, RunFailure>;
  map(graph: Graph, options: MapOptions): Effect.Effect<MapResult, RunFailure>;
  /** The run's events as a Stream; fails with the run's error. */
  stream(graph: Graph, options?: RunOptions): Stream.Stream<GraphEvent, RunFailure>;
  stop(workflowId: string, info?: unknown): Effect.Effect<boolean>;
  readonly close: Effect.Effect<void>;
}

/**
 * Creates an {@link EffectRunner} whose lifetime is the surrounding scope.
 *
 * @example
 * ```ts
 * import { Effect } from "effect";
 * import { makeRunner } from "@graph/runtime/effect";
 * const result = await Effect.runPromise(Effect.scoped(Effect.flatMap(makeRunner(), (r) => r.run(graph, { values }))));
 * ```
 */
export function makeRunner(
  options: RunnerOptions = {},
): Effect.Effect<EffectRunner, never, import("effect").Scope.Scope> {
  return Effect.acquireRelease(
    Effect.sync(() => {
      const core = new RunnerCore(options);
      const runner: EffectRunner = {
        run: (graph, runOptions) => core.run(graph, runOptions),
        map: (graph, mapOptions) => core.map(graph, mapOptions),
        stream: (graph, runOptions = {}) =>
          Stream.unwrap(
            Effect.sync(() => {
              const subscriber = new Subscriber(options.eventBufferSize ?? 1000);
              const run = core.run(graph, runOptions, subscriber, new RunControl());
              const events = Stream.fromAsyncIterable(subscriber, (e) => e as RunFailure);
              return Stream.merge(
                events,
                Stream.drain(Stream.fromEffect(run.pipe(Effect.ensuring(Effect.sync(() => subscriber.close()))))),
                {
                  haltStrategy: "left",
                },
              );
            }),
          ),
        stop: (workflowId, info) => Effect.sync(() => core.stop(workflowId, info)),
        close: core.close(),
      };
      return runner;
    }),
    (runner) => runner.close,
  );
}

/** Re-exported option types. */
export type { MapOptions, RunnerOptions, RunOptions };
