import type { FunctionNode } from "@graph/core";
import * as Deferred from "effect/Deferred";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Schedule from "effect/Schedule";
import { stableKey } from "../equal.js";
import type { EngineHost } from "../host.js";
import { NodeCtx } from "../nodeContext.js";
import { withNodeLimits } from "../nodeLimits.js";
import { type Execution, isIterator, isThenable, type Outcome, stopped } from "../outcome.js";
import { driveStream } from "./stream.js";

// Function nodes with cache, retry, timeout or streaming, and async nodes under a concurrency limit: the general
// path, in Effect. Each attempt races the run's stop; retries wait on an Effect Schedule.

type Retry = NonNullable<FunctionNode["retry"]>;

/**
 * Runs a function node: under permits of its own limits (`node({ concurrency, rateLimit })`) when it has some, then under a
 * permit of the runner's shared limit when there is one (taken in that order, so a call waiting for its node's
 * permit holds none of the shared ones).
 */
export function executeFunction(host: EngineHost, ex: Execution, n: FunctionNode): Effect.Effect<Outcome> {
  const run = cached(host, ex, n, withRetry(host, ex, n));
  const semaphore = host.config.shared.semaphore;
  const shared = semaphore === undefined ? run : semaphore.withPermits(1)(run);
  return n.concurrency === undefined && n.rateLimit === undefined ? shared : withNodeLimits(host, ex, n, shared);
}

/** The delays between attempts: constant, linear or exponential from `initialDelayMs`, capped at `maxDelayMs`. */
export function retrySchedule(retry: Retry): Schedule.Schedule<unknown, unknown> {
  const initial = Duration.millis(retry.initialDelayMs ?? 100);
  const max = Duration.millis(retry.maxDelayMs ?? 30_000);
  const backoff = retry.backoff ?? "exponential";
  const base: Schedule.Schedule<unknown> =
    backoff === "constant"
      ? Schedule.spaced(initial)
      : backoff === "linear"
        ? Schedule.linear(initial)
        : Schedule.exponential(initial, 2);
  return base.pipe(
    Schedule.modifyDelay((_, delay) => Duration.min(delay, max)),
    Schedule.intersect(Schedule.recurs(retry.attempts - 1)),
  );
}

function withRetry(host: EngineHost, ex: Execution, n: FunctionNode): Effect.Effect<Outcome> {
  const control = host.config.control;
  let attempt = 0;
  const retry = n.retry;
  const retryable = (error: unknown) => !control.stopRequested && (retry?.retryOn?.(error) ?? true);
  const once = Effect.suspend(() => attemptOnce(host, ex, n, ++attempt)).pipe(
    Effect.tapError((error) =>
      Effect.sync(() => {
        const willRetry = retry !== undefined && attempt < retry.attempts && retryable(error);
        host.event("NodeError", { nodeName: n.name, error, attempt, willRetry }, ex.spanId);
      }),
    ),
  );
  const retried =
    retry === undefined ? once : Effect.retry(once, retrySchedule(retry).pipe(Schedule.whileInput(retryable)));
  return retried.pipe(Effect.catchAll((error) => Effect.succeed<Outcome>({ kind: "failed", error, reported: true })));
}

const STOPPED = Symbol("stopped");

/** One attempt: fails with the node's error (timeouts included); a stop ends it as "stopped". */
function attemptOnce(
  host: EngineHost,
  ex: Execution,
  n: FunctionNode,
  attempt: number,
): Effect.Effect<Outcome, unknown> {
  const control = host.config.control;
  if (control.stopRequested && !host.config.completeOnStop) return Effect.succeed(stopped());
  // A node with a timeout gets its own controller: the timeout aborts this node, not its siblings.
  const controller = n.timeoutMs === undefined ? undefined : new AbortController();
  if (controller !== undefined) control.track(controller);
  const call = callNode(host, ex, n, controller, attempt);
  const timed =
    n.timeoutMs === undefined || controller === undefined
      ? call
      : call.pipe(
          Effect.timeoutFail({
            duration: n.timeoutMs,
            onTimeout: () => {
              const error = new Error(`Node '${n.name}' timed out after ${n.timeoutMs} ms (attempt ${attempt}).`);
              error.name = "TimeoutError";
              controller.abort(error);
              return error;
            },
          }),
        );
  // Regular nodes are cut off when a stop arrives; streaming nodes end themselves (they may keep partial output).
  // A node that starts after the stop (completeOnStop: true) runs to the end.
  const raced =
    n.isStreaming || control.stopRequested
      ? timed
      : Effect.raceFirst(timed, Deferred.await(control.stopped).pipe(Effect.as(STOPPED as typeof STOPPED)));
  const result = raced.pipe(Effect.map((value) => (value === STOPPED ? stopped() : (value as Outcome))));
  return controller === undefined
    ? result
    : result.pipe(Effect.ensuring(Effect.sync(() => control.untrack(controller))));
}

/** Calls the function and drives its result (value, promise, or generator) to an Outcome; errors as failures. */
function callNode(
  host: EngineHost,
  ex: Execution,
  n: FunctionNode,
  controller: AbortController | undefined,
  attempt: number,
): Effect.Effect<Outcome, unknown> {
  return Effect.suspend(() => {
    let returned: unknown;
    try {
      returned = host.invoke(ex, n, new NodeCtx(host, ex, controller, attempt));
    } catch (error) {
      return Effect.fail(error);
    }
    if (n.isStreaming && isIterator(returned)) return driveStream(host, ex, n, returned);
    const finish = (value: unknown): Effect.Effect<Outcome, unknown> =>
      Effect.try({ try: () => ({ kind: "completed", outputs: n.collectOutputs(value) }) as Outcome, catch: (e) => e });
    if (isThenable(returned))
      return Effect.tryPromise({ try: () => Promise.resolve(returned), catch: (e) => e }).pipe(Effect.flatMap(finish));
    return finish(returned);
  });
}

/** Cached nodes: a hit skips the call; a completed, untruncated outcome is stored. Cache failures are ignored. */
function cached(host: EngineHost, ex: Execution, n: FunctionNode, run: Effect.Effect<Outcome>): Effect.Effect<Outcome> {
  const cache = host.config.shared.cache;
  if (!n.cache || cache === undefined) return run;
  let key: string;
  try {
    key = `${n.definitionHash}:${stableKey(n.cacheKey === undefined ? ex.inputs : { $key: n.cacheKey(ex.inputs) })}`;
  } catch (error) {
    // The user's cacheKey threw or returned what can't be keyed: the node fails with that error.
    if (n.cacheKey !== undefined) return Effect.succeed({ kind: "failed", error });
    return run; // inputs that can't be keyed (functions, cycles) are simply not cached
  }
  return Effect.promise(async () => cache.get(key)).pipe(
    Effect.catchAllDefect(() => Effect.succeed(undefined)),
    Effect.flatMap((hit): Effect.Effect<Outcome> => {
      if (hit !== undefined) {
        host.event("CacheHit", { nodeName: n.name }, ex.spanId);
        return Effect.succeed({ kind: "completed", outputs: { ...hit.value }, cached: true });
      }
      return run.pipe(
        Effect.tap((o) =>
          o.kind === "completed" && !o.truncated
            ? Effect.promise(async () => cache.set(key, o.outputs)).pipe(Effect.catchAllDefect(() => Effect.void))
            : Effect.void,
        ),
      );
    }),
  );
}
