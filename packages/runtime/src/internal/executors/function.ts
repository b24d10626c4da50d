import type { FunctionNode } from "@graph/core";
import * as Deferred from "effect/Deferred";
import * as Duration from "effect/Duration";
import * as Effect from "effect/Effect";
import * as Schedule from "effect/Schedule";
import { AttemptsExhaustedError } from "../../errors.js";
import { stableKey } from "../equal.js";
import type { EngineHost } from "../host.js";
import { NodeCtx } from "../nodeContext.js";
import { withNodeLimits } from "../nodeLimits.js";
import { type Execution, isIterator, isThenable, type Outcome, type RunError, stopped } from "../outcome.js";
import { driveStream } from "./stream.js";

// Function nodes with cache, retry, timeout or streaming, and async nodes under a concurrency limit: the general
// path, in Effect. Each attempt races the run's stop; retries wait on an Effect Schedule.

type Retry = NonNullable<FunctionNode["retry"]>;

/**
 * Runs a function node: under permits of its own limits (`node({ concurrency, rateLimit })`) when it has some, then under a
 * permit of the runner's shared limit when there is one (taken in that order, so a call waiting for its node's
 * permit holds none of the shared ones).
 */
export function executeFunction(host: EngineHost, ex: Execution, n: FunctionNode): Effect.Effect<Outcome, RunError> {
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

/**
 * The delays from a resumed attempt on: the ones {@link retrySchedule} has after attempt `from - 1` failed, so a step
 * resumed at attempt 3 of 4 waits what attempt 3's failure always waits, and retries only up to the budget.
 */
function retryScheduleFrom(retry: Retry, from: number): Schedule.Schedule<unknown, unknown> {
  if (from <= 1) return retrySchedule(retry);
  const initial = retry.initialDelayMs ?? 100;
  const max = retry.maxDelayMs ?? 30_000;
  const backoff = retry.backoff ?? "exponential";
  const delays: number[] = [];
  for (let failed = from; failed < retry.attempts; failed++) {
    const delay =
      backoff === "constant" ? initial : backoff === "linear" ? initial * failed : initial * 2 ** (failed - 1);
    delays.push(Math.min(delay, max));
  }
  const [first, ...rest] = delays;
  return first === undefined ? Schedule.stop : Schedule.fromDelays(first, ...rest);
}

/** An attempt start the store refused (a lost lease, storage down): the run's failure, never the node's to retry. */
class StartNotSaved {
  readonly error: RunError;
  constructor(error: RunError) {
    this.error = error;
  }
}

function withRetry(host: EngineHost, ex: Execution, n: FunctionNode): Effect.Effect<Outcome, RunError> {
  const control = host.config.control;
  const retry = n.retry;
  if (retry === undefined) return plainAttempts(host, ex, n);
  // Durable attempts: the number and the budget go on from where the stored history left this step.
  const first = host.attempts.first(ex);
  if (first.number > retry.attempts) {
    const error = new AttemptsExhaustedError(host.config.workflowId, n.name, retry.attempts);
    const attempt = { number: retry.attempts, repeats: first.repeats };
    return Effect.sync((): Outcome => {
      host.event("NodeError", { nodeName: n.name, error, attempt: retry.attempts, willRetry: false }, ex.spanId);
      return { kind: "failed", error, reported: true, attempt };
    });
  }
  let attempt = first.number - 1;
  const mark = () => ({ number: attempt, repeats: first.repeats });
  const retryable = (error: unknown) =>
    !(error instanceof StartNotSaved) && !control.stopRequested && (retry.retryOn?.(error) ?? true);
  const once = Effect.suspend((): Effect.Effect<Outcome, unknown> => {
    attempt++;
    // Stopped before this attempt began: nothing is recorded as started, its step says where to go on.
    if (control.stopRequested && !host.config.completeOnStop) return Effect.succeed(stopped());
    return host.attempts.start(host, ex, mark()).pipe(
      Effect.mapError((error) => new StartNotSaved(error)),
      Effect.zipRight(attemptOnce(host, ex, n, attempt)),
    );
  }).pipe(
    Effect.tapError((error) =>
      error instanceof StartNotSaved
        ? Effect.void
        : Effect.sync(() => {
            const willRetry = attempt < retry.attempts && retryable(error);
            host.event("NodeError", { nodeName: n.name, error, attempt, willRetry }, ex.spanId);
          }),
    ),
  );
  return Effect.retry(once, retryScheduleFrom(retry, first.number).pipe(Schedule.whileInput(retryable))).pipe(
    Effect.map((o) => {
      o.attempt = mark();
      return o;
    }),
    Effect.catchAll((error) =>
      error instanceof StartNotSaved
        ? Effect.fail(error.error)
        : Effect.succeed<Outcome>({ kind: "failed", error, reported: true, attempt: mark() }),
    ),
  );
}

/** A node without `retry`: one attempt, nothing recorded before it. */
function plainAttempts(host: EngineHost, ex: Execution, n: FunctionNode): Effect.Effect<Outcome> {
  return attemptOnce(host, ex, n, 1).pipe(
    Effect.tapError((error) =>
      Effect.sync(() => host.event("NodeError", { nodeName: n.name, error, attempt: 1, willRetry: false }, ex.spanId)),
    ),
    Effect.catchAll((error) => Effect.succeed<Outcome>({ kind: "failed", error, reported: true })),
  );
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
function cached(
  host: EngineHost,
  ex: Execution,
  n: FunctionNode,
  run: Effect.Effect<Outcome, RunError>,
): Effect.Effect<Outcome, RunError> {
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
    Effect.flatMap((hit): Effect.Effect<Outcome, RunError> => {
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
