/**
 * The argument and result types of `RemoteRunner.run`/`start`: the same checks as `Runner.run` (values against the
 * graph's inputs, results typed by its outputs), built from `@graph/core`'s graph types.
 *
 * @module
 */
import type { NoValuesNeeded, PausesOf, ResultOutputsOf, RunValuesOf } from "@graph/core";
import type { GraphEvent, MapResult, RunOptions, RunResult } from "@graph/runtime";

/** Anything a runner accepts: a `Graph` (its phantom type record). */
export interface AnyGraph {
  readonly "~types": { readonly in: any; readonly out: any; readonly meta: any };
}

/** Options of a remote run (a fork from a `checkpoint` and an abort `signal` stay local: use `Runner`). */
type Common = Omit<RunOptions, "values" | "workflowId" | "checkpoint" | "signal">;

/** Options of a fresh remote run of `G`: `values` must hold every required input. */
export type RemoteStartOptions<G extends AnyGraph> = Common & {
  readonly workflowId?: string | undefined;
} & (NoValuesNeeded<G> extends true
    ? { readonly values?: RunValuesOf<G> | undefined }
    : { readonly values: RunValuesOf<G> });

/** Options of a remote resume: the workflow id, and any values (an interrupt's answer). */
export type RemoteResumeOptions<G extends AnyGraph> = Common & {
  readonly workflowId: string;
  readonly values?: Partial<RunValuesOf<G>> | undefined;
};

/** The options argument of a fresh run: optional when the graph needs no values. */
export type RemoteStartArgs<G extends AnyGraph> =
  NoValuesNeeded<G> extends true ? [options?: RemoteStartOptions<G>] : [options: RemoteStartOptions<G>];

/** The result of a run of `G`. */
export type RemoteResultOf<G extends AnyGraph> = RunResult<ResultOutputsOf<G>, PausesOf<G>>;

/** What `RemoteRunner.start` returns: the same shape as `Runner.start`'s handle. */
export interface RemoteRunHandle<G extends AnyGraph = AnyGraph> {
  readonly workflowId: string;
  /** The run id, once the result is in (empty before). */
  readonly runId: string;
  /** Every event of the run, in order, from its first (replayed from the run's stream). */
  readonly events: AsyncIterable<GraphEvent>;
  readonly result: Promise<RemoteResultOf<G>>;
  /** Stops the run wherever it runs (or before it starts). */
  stop(info?: unknown): Promise<void>;
}

/** The result of `RemoteRunner.map` over `G`. */
export type MapResultOf<G extends AnyGraph> = MapResult<ResultOutputsOf<G>>;
