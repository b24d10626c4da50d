import type { IsAny } from "./util.js";

/**
 * How a run ended.
 *
 * @example
 * ```ts
 * const s: RunStatus = "completed";
 * ```
 */
export type RunStatus = "completed" | "paused" | "stopped" | "failed";

/**
 * The shape of a run's result, typed by the graph's outputs: what `@graph/runtime`'s `RunResult` implements and
 * what a GraphNode contributes under its name. Declared here so `OutputsOf` can describe nested results without
 * core depending on the runtime.
 *
 * @example
 * ```ts
 * const docs: string[] | undefined = (result as GraphResult<{ docs: string[] }>).get("docs");
 * ```
 */
export interface GraphResult<Out = any, Pause = any> {
  /** Phantom (never set at run time): the outputs this result is typed by, for `get` paths through it. */
  readonly "~outputs"?: Out;
  readonly status: RunStatus;
  readonly values: Readonly<Partial<Out>>;
  readonly workflowId: string | undefined;
  readonly runId: string;
  readonly pause: Pause | undefined;
  readonly error: unknown;
  /** The value at a `/`-separated path (`"rag/docs"`), descending through nested results. */
  get<const P extends string>(path: ResultPath<Out, P>): PathValue<Out, P> | undefined;
  has(path: string): boolean;
  toJSON(): Record<string, unknown>;
}

type OutputsIn<R> = R extends { readonly "~outputs"?: infer O } ? O : never;

/** The type at a `/` path of a result typed by `Out`: one step per path segment, so its cost is the path's depth. */
export type PathValue<Out, P extends string> =
  IsAny<Out> extends true
    ? any
    : P extends keyof Out
      ? Out[P]
      : P extends `${infer Head}/${infer Rest}`
        ? Head extends keyof Out
          ? PathValue<OutputsIn<Exclude<Out[Head], undefined>>, Rest>
          : never
        : never;

type IsPath<Out, P extends string> = P extends keyof Out
  ? true
  : P extends `${infer Head}/${infer Rest}`
    ? Head extends keyof Out
      ? IsPath<OutputsIn<Exclude<Out[Head], undefined>>, Rest>
      : false
    : false;

/** The deepest valid prefix's names, for the error message of a misspelled path. */
type Suggest<Out, P extends string, Prefix extends string = ""> = P extends `${infer Head}/${infer Rest}`
  ? Head extends keyof Out
    ? Suggest<OutputsIn<Exclude<Out[Head], undefined>>, Rest, `${Prefix}${Head}/`>
    : `${Prefix}${keyof Out & string}`
  : `${Prefix}${keyof Out & string}`;

/** `P` when it names a value of `Out` (through nested results), else the valid names at the failing level. */
export type ResultPath<Out, P extends string> =
  IsAny<Out> extends true ? P : string extends keyof Out ? P : IsPath<Out, P> extends true ? P : Suggest<Out, P>;
