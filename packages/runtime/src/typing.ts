/**
 * The run signatures' types: what `runner.run(graph, options)` accepts and returns for a typed graph. Shared by the
 * Promise `Runner` and the Effect runner so both check the same things.
 */
import type { Checkpoint } from "@graph/checkpoint";
import type { NoValuesNeeded, PausesOf, ResultOutputsOf, RunValuesOf } from "@graph/core";
import type { RunOptions } from "./options.js";
import type { MapResult, RunResult } from "./RunResult.js";

/** Anything `runner.run` accepts: a `Graph` (its phantom type record). */
interface AnyGraph {
  readonly "~types": { readonly in: any; readonly out: any; readonly meta: any };
}

type Common = Omit<RunOptions, "values" | "workflowId" | "checkpoint">;

/**
 * Options of a fresh run of `G`: `values` must hold every required input (an unknown key or a wrong type is an
 * error naming the key); produced values may be supplied too.
 */
type StartOptions<G extends AnyGraph> = Common & {
  readonly workflowId?: string | undefined;
  readonly checkpoint?: Checkpoint | undefined;
} & (NoValuesNeeded<G> extends true
    ? { readonly values?: RunValuesOf<G> | undefined }
    : { readonly values: RunValuesOf<G> });

/** Options of a resume (`workflowId` given) or a fork (`checkpoint` given): the stored values fill the rest. */
export type ResumeOptions<G extends AnyGraph> = Common &
  ({ readonly workflowId: string } | { readonly checkpoint: Checkpoint }) & {
    readonly values?: Partial<RunValuesOf<G>> | undefined;
  };

/** The options argument of a fresh run: optional when the graph needs no values. */
export type StartArgs<G extends AnyGraph> =
  NoValuesNeeded<G> extends true ? [options?: StartOptions<G>] : [options: StartOptions<G>];

/** The result of a run of `G`: values, `get` paths and `pause` typed by the graph. */
export type ResultOf<G extends AnyGraph> = RunResult<ResultOutputsOf<G>, PausesOf<G>>;

/** The result of `runner.map` over `G`. */
export type MapResultOf<G extends AnyGraph> = MapResult<ResultOutputsOf<G>>;
