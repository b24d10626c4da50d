/**
 * The run signatures' types: what `runner.run(graph, options)` accepts and returns for a typed graph. Shared by the
 * Promise `Runner` and the Effect runner so both check the same things.
 *
 * One signature covers a fresh run, a resume and a fork (two overloads would make every mistake an "No overload
 * matches this call" dump): `K` is inferred from the values' keys (an unknown one becomes a message naming it),
 * `W` and `C` from `workflowId` and `checkpoint` (given, the stored values fill the rest, so `values` is partial).
 */
import type { Checkpoint } from "@graph/checkpoint";
import type {
  NoValuesNeeded,
  PausesOf,
  ResultOutputsOf,
  RunValuesOf,
  SeedChoiceOf,
  UnknownValuesOf,
} from "@graph/core";
import type { RunOptions } from "./options.js";
import type { MapResult, RunResult } from "./RunResult.js";

/** Anything `runner.run` accepts: a `Graph` (its phantom type record). */
interface AnyGraph {
  readonly "~types": { readonly in: any; readonly out: any; readonly meta: any };
}

type Common = Omit<RunOptions, "values" | "workflowId" | "checkpoint">;
/** `runSync` takes no `signal`. */
type SyncCommon = Omit<Common, "signal">;

/** A resume (`workflowId` given) or a fork (`checkpoint` given). */
type IsResume<W, C> = [W] extends [string] ? true : [C] extends [Checkpoint] ? true : false;

/**
 * `values` of a run of `G`: on a fresh run every required input and a first value for each loop (an unknown key, a
 * wrong type or a missing input is an error naming the key), produced values optional; on a resume or fork any
 * subset.
 */
type ValuesOption<G extends AnyGraph, K extends PropertyKey, Resume> = Resume extends true
  ? { readonly values?: (UnknownValuesOf<G, K> & Partial<RunValuesOf<G>>) | undefined }
  : NoValuesNeeded<G> extends true
    ? { readonly values?: (UnknownValuesOf<G, K> & RunValuesOf<G>) | undefined }
    : { readonly values: UnknownValuesOf<G, K> & RunValuesOf<G> & SeedChoiceOf<G, K> };

/** The options of a run of `G` (see {@link RunArgs}). */
type RunOptionsOf<G extends AnyGraph, K extends PropertyKey, W, C, Sync> = (Sync extends true ? SyncCommon : Common) & {
  readonly workflowId?: W;
  readonly checkpoint?: C;
} & ValuesOption<G, K, IsResume<W, C>>;

/**
 * The options argument of `run`/`start`/`stream`: optional when the graph needs no values, else required (leaving it
 * out of a graph that needs values, a loop's seed among them, is an error).
 */
export type RunArgs<G extends AnyGraph, K extends PropertyKey, W, C, Sync = false> =
  NoValuesNeeded<G> extends true
    ? [options?: RunOptionsOf<G, K, W, C, Sync>]
    : [options: RunOptionsOf<G, K, W, C, Sync>];

/** The result of a run of `G`: values, `get` paths and `pause` typed by the graph. */
export type ResultOf<G extends AnyGraph> = RunResult<ResultOutputsOf<G>, PausesOf<G>>;

/** The result of `runner.map` over `G`. */
export type MapResultOf<G extends AnyGraph> = MapResult<ResultOutputsOf<G>>;
