import { expect } from "vitest";

/** What tests read off a thrown error: the message, the `_tag` and any extra fields. */
export type Thrown = Error & { readonly _tag?: string; readonly [field: string]: unknown };

/** Runs `run`, expects it to throw an Error, and returns it (typed as `E` when the caller knows better). */
export function errorOf<E extends Error = Thrown>(run: () => unknown): E {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    return error as E;
  }
  throw new Error("expected an error, nothing was thrown");
}

/**
 * Builds a function from exact source text, so tests control what `Function.prototype.toString` returns (the test
 * transpiler never touches it): minified forms, comments, anonymous functions.
 */
export function fromSource<T = (...args: never[]) => unknown>(source: string): T {
  return new Function(`return (${source});`)() as T;
}

/** A `NodeContext` stand-in for calling `invoke` directly. */
export const ctx = {
  signal: new AbortController().signal,
  stopRequested: false,
  idempotencyKey: "wf:n:",
  workflowId: "w",
  runId: "r",
  nodeName: "n",
  attempt: 1,
  emit: () => undefined,
  usage: () => undefined,
};
