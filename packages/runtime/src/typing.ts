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
/** What every runner takes ({@link StartArgs}): no fork from a `checkpoint`, no abort `signal` (those are local). */
type StartCommon = Omit<Common, "signal">;

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

/**
 * The options of a run of `G` over `Base` (see {@link RunArgs}, {@link StartArgs}). One alias for both, so the
 * compiler can match `Runner`'s signatures against `GraphRunner`'s by their type arguments.
 */
type OptionsOf<Base, G extends AnyGraph, K extends PropertyKey, W, C> = Base & {
  readonly workflowId?: W;
  readonly checkpoint?: C;
} & ValuesOption<G, K, IsResume<W, C>>;

/** The options argument: optional when the graph needs no values, else required. */
type ArgsOf<G extends AnyGraph, Options> = NoValuesNeeded<G> extends true ? [options?: Options] : [options: Options];

/**
 * The options argument of `Runner.run`/`start`/`stream`: optional when the graph needs no values, else required
 * (leaving it out of a graph that needs values, a loop's seed among them, is an error).
 */
export type RunArgs<G extends AnyGraph, K extends PropertyKey, W, C, Sync = false> = ArgsOf<
  G,
  OptionsOf<Sync extends true ? SyncCommon : Common, G, K, W, C>
>;

/**
 * The options argument of `run`/`start` on any runner (`GraphRunner`): the values checked against `G`'s inputs
 * (every required one on a fresh run, any subset on a resume — `workflowId` given), and the run options every
 * runner honours (no fork from a `checkpoint`, no abort `signal`). `K` and `W` are inferred from the call: the
 * values' keys and the workflow id.
 *
 * @example
 * ```ts
 * function submit<G extends Graph>(runner: GraphRunner, graph: G, ...options: StartArgs<G>) {
 *   return runner.start(graph, ...options);
 * }
 * ```
 */
export type StartArgs<
  G extends AnyGraph,
  K extends PropertyKey = never,
  W extends string | undefined = undefined,
> = ArgsOf<G, OptionsOf<StartCommon, G, K, W, undefined>>;

/** The result of a run of `G`: values, `get` paths and `pause` typed by the graph. */
export type ResultOf<G extends AnyGraph> = RunResult<ResultOutputsOf<G>, PausesOf<G>>;

/** The result of `runner.map` over `G`. */
export type MapResultOf<G extends AnyGraph> = MapResult<ResultOutputsOf<G>>;
