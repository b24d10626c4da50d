import { expect } from "vitest";

/** Runs `run`, expects it to throw, and returns what it threw. */
export function errorOf(run: () => unknown): Error & { _tag?: string; [key: string]: unknown } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    return error as Error & { _tag?: string };
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
  workflowId: "w",
  runId: "r",
  nodeName: "n",
  attempt: 1,
  emit: () => undefined,
};
