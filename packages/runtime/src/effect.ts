/**
 * The Effect-facing API of `@graph/runtime`: the same operations as the Promise `Runner`, as Effects whose failures
 * are the typed errors.
 *
 * @module
 */
import type { Checkpoint } from "@graph/checkpoint";
import type { Graph, GraphConfigError } from "@graph/core";
import * as Effect from "effect/Effect";
import * as Stream from "effect/Stream";
import type { GraphEvent } from "./events.js";
import { RunControl, Subscriber } from "./internal/context.js";
import type { RunError } from "./internal/outcome.js";
import { RunnerCore } from "./internal/runner.js";
import type { MapOptions, RunnerOptions, RunOptions } from "./options.js";
import type { MapResultOf, ResultOf, RunArgs } from "./typing.js";

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
  /** Like the Promise `runner.run`: values checked against the graph's inputs, the result typed by its outputs. */
  run<
    G extends Graph,
    K extends PropertyKey = never,
    W extends string | undefined = undefined,
    C extends Checkpoint | undefined = undefined,
  >(graph: G, ...options: RunArgs<G, K, W, C>): Effect.Effect<ResultOf<G>, RunFailure>;
  map<G extends Graph>(graph: G, options: MapOptions): Effect.Effect<MapResultOf<G>, RunFailure>;
  /** The run's events as a Stream; fails with the run's error. */
  stream<
    G extends Graph,
    K extends PropertyKey = never,
    W extends string | undefined = undefined,
    C extends Checkpoint | undefined = undefined,
  >(graph: G, ...options: RunArgs<G, K, W, C>): Stream.Stream<GraphEvent, RunFailure>;
  /** Like the Promise `runner.stop`: stops the workflow here and, with a checkpointer, in any process. */
  stop(workflowId: string, info?: unknown): Effect.Effect<boolean, RunFailure>;
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
): Effect.Effect<EffectRunner, never, import("effect/Scope").Scope> {
  return Effect.acquireRelease(
    Effect.sync(() => {
      const core = new RunnerCore(options);
      const run = (graph: Graph, runOptions: object = {}) => core.run(graph, runOptions as RunOptions);
      const stream = (graph: Graph, runOptions: object = {}) =>
        Stream.unwrap(
          Effect.sync(() => {
            const subscriber = new Subscriber(options.eventBufferSize ?? 1000);
            const run = core.run(graph, runOptions as RunOptions, subscriber, new RunControl());
            const events = Stream.fromAsyncIterable(subscriber, (e) => e as RunFailure);
            return Stream.merge(
              events,
              Stream.drain(Stream.fromEffect(run.pipe(Effect.ensuring(Effect.sync(() => subscriber.close()))))),
              {
                haltStrategy: "left",
              },
            );
          }),
        );
      // The typed overloads of EffectRunner share these untyped implementations.
      const runner = {
        run,
        map: (graph: Graph, mapOptions: MapOptions) => core.map(graph, mapOptions),
        stream,
        stop: (workflowId, info) => core.stop(workflowId, info),
        close: core.close(),
      } as EffectRunner;
      return runner;
    }),
    (runner) => runner.close,
  );
}

/** Re-exported option types. */
export type { MapOptions, RunnerOptions, RunOptions };
