/**
 * How a run's end reaches its caller: the result as the caller asked for it (`select`, `errorHandling`), an Effect run
 * as a Promise that rejects with the typed error itself, and an `AbortSignal` linked to a run's stop control.
 */
import { isTaggedError } from "@graph/core";
import { runResultAdapter, selectTree } from "@graph/select";
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Option from "effect/Option";
import { NodeExecutionError } from "../errors.js";
import type { RunOptions } from "../options.js";
import type { RunResult } from "../RunResult.js";
import type { RunControl } from "./context.js";
import type { RunError } from "./outcome.js";

/** Aborting `signal` stops the run; returns the unlink. */
export function linkSignal(signal: AbortSignal | undefined, control: RunControl): () => void {
  if (signal === undefined) return () => {};
  const onAbort = () => control.stop(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

/** The caller's view of a finished run: `select` applied; with `errorHandling: "raise"` a failure is the error. */
export function settle(
  result: RunResult,
  options: RunOptions,
): { readonly result: RunResult } | { readonly error: RunError } {
  const selected =
    options.select === undefined ? result : selectTree(result, options.select, { adapter: runResultAdapter });
  if (result.status === "failed" && (options.errorHandling ?? "raise") === "raise") {
    const error = result.error;
    if (isTaggedError<NodeExecutionError>(error, "NodeExecutionError"))
      return { error: new NodeExecutionError(error.nodeName, error.cause, selected) };
    return { error: error as RunError };
  }
  return { result: selected };
}

/** {@link settle} as an Effect: the error fails it. */
export function finalize(result: RunResult, options: RunOptions): Effect.Effect<RunResult, RunError> {
  const settled = settle(result, options);
  return "error" in settled ? Effect.fail(settled.error) : Effect.succeed(settled.result);
}

/** Runs an Effect as a Promise that rejects with the typed error itself (not Effect's wrapper). */
export async function runPromise<A>(effect: Effect.Effect<A, unknown>): Promise<A> {
  const exit = await Effect.runPromiseExit(effect);
  return unwrap(exit);
}

export function unwrap<A>(exit: Exit.Exit<A, unknown>): A {
  if (Exit.isSuccess(exit)) return exit.value;
  const failure = Cause.failureOption(exit.cause);
  if (Option.isSome(failure)) throw failure.value;
  throw Cause.squash(exit.cause);
}
