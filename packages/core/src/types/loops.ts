/**
 * Loops that need a first value from the caller, found from the nodes' types.
 *
 * The runtime picks each loop's entry from its structure, its gates and, on a tie, its nodes' names. A node named by
 * its function has no literal name, so the checker can't always pick the same entry. What it can always tell is
 * whether a loop can start on the values it knows: every node whose required inputs are known "runs" (a value is
 * known when the caller must pass it or a node that ran produces it), until nothing more runs. The nodes left over
 * wait on each other around a loop, or on such a loop. The runtime breaks every loop at its entry, and the value
 * carried into the entry is one the caller must supply; so a fresh run must pass at least one value of each loop of
 * waiting nodes: the graph's *seed choice*. When it holds one value, or a configured `entrypoint` with a literal name
 * waits in a loop, the value is known and becomes a required input.
 *
 * Cost: the first walk follows the node list once (a list in reading order settles there); what is left is walked
 * again as a union, at most a few times. A list far from order, a long list, a waiting value with two producers
 * (exclusive branches) or a reachability that does not settle quickly gives up: then nothing more is required —
 * never something the runtime does not need.
 */

import type { AnyNodeTypes, Typed } from "./ports.js";
import type { Empty } from "./util.js";

/** Does the node need nothing beyond `Known` (keys with a default are not needed; an open record needs nothing)? */
type Ready<T extends AnyNodeTypes, Known> = Empty extends Omit<T["in"], Known & PropertyKey> ? true : false;

/** Past this many nodes the first walk stops and gives up (type recursion is bounded). */
type LongList = 300;

/** The first walk, in list order: a ready node's outputs become known, the others are left for later. */
type Walk<Ns extends readonly Typed[], Known, Left = never, I extends 0[] = []> = I["length"] extends Ns["length"]
  ? Later<Left, Known>
  : I["length"] extends LongList
    ? undefined
    : Ns[I["length"]]["~types"] extends infer H extends AnyNodeTypes
      ? Ready<H, Known> extends true
        ? Walk<Ns, Known | keyof H["out"], Left, [...I, 0]>
        : Walk<Ns, Known, Left | H, [...I, 0]>
      : undefined;

/** Nodes of `Left` that are ready. */
type ReadyOf<Left, Known> = Left extends AnyNodeTypes ? (Ready<Left, Known> extends true ? Left : never) : never;
/** Nodes of `Left` that are not. */
type WaitingOf<Left, Known> = Left extends AnyNodeTypes ? (Ready<Left, Known> extends true ? never : Left) : never;

/** Further walks over what is left, as a union, until nothing more runs; then the waiting nodes. */
type Later<Left, Known, N extends 0[] = []> = [Left] extends [never]
  ? never
  : ReadyOf<Left, Known> extends infer R
    ? [R] extends [never]
      ? WaitingOn<Left, Known>
      : N["length"] extends 6
        ? undefined
        : Later<WaitingOf<Left, Known>, Known | (R extends AnyNodeTypes ? keyof R["out"] : never), [...N, 0]>
    : undefined;

/** A node still waiting once the walks settled: its name, the values it waits for and the values it produces. */
interface Waiting<Name = string, Waits = PropertyKey, Makes = PropertyKey> {
  readonly name: Name;
  readonly waits: Waits;
  readonly makes: Makes;
}

type WaitingOn<Left, Known> = Left extends AnyNodeTypes
  ? Waiting<
      Left["name"],
      { [K in keyof Left["in"]]-?: Empty extends Pick<Left["in"], K> ? never : K }[Exclude<keyof Left["in"], Known>],
      keyof Left["out"]
    >
  : never;

/** What the waiting nodes reached from `Start` produce; `undefined` among it when the walk does not settle. */
type Reach<W, Start, Made = never, N extends 0[] = []> = (
  W extends Waiting
    ? [W["waits"] & (Start | Made)] extends [never]
      ? never
      : W["makes"]
    : never
) extends infer M
  ? [Exclude<M, Made>] extends [never]
    ? Made
    : N["length"] extends 12
      ? undefined
      : Reach<W, Start, Made | M, [...N, 0]>
  : undefined;

/** Waited-for values that come back to themselves around a loop (not those only downstream of one). */
type LoopValues<W extends Waiting> = W["waits"] extends infer V
  ? V extends unknown
    ? Reach<W, V> extends infer M
      ? undefined extends M
        ? undefined
        : V extends M
          ? V
          : never
      : never
    : never
  : never;

/** The values a configured entrypoint waits for that come back to it around its loop. */
type EntrySeeds<W extends Waiting, Entry, All extends Waiting = W> = W extends unknown
  ? W["name"] extends Entry
    ? W["waits"] & Exclude<Reach<All, W["makes"]>, undefined>
    : never
  : never;

type IsUnion<U, All = U> = U extends unknown ? ([All] extends [U] ? false : true) : never;

/** Waited-for values that two waiting nodes produce (exclusive branches): the walk leaves such loops alone. */
type Duplicated<W extends Waiting> = W["waits"] extends infer V
  ? V extends unknown
    ? true extends IsUnion<W extends unknown ? (V extends W["makes"] ? W : never) : never>
      ? V
      : never
    : never
  : never;

/** What the loops of a graph need on a fresh run. */
interface LoopNeeds<Required = never, Choice = never> {
  /** Values a fresh run must supply (surely among the runtime's seeds). */
  readonly required: Required;
  /** Values of which a fresh run must supply at least one (the entry of their loop decides which it reads). */
  readonly choice: Choice;
}

/**
 * The loop needs of a graph of nodes `Ns` whose caller supplies `Known` (its inputs, the seeds found before);
 * `Entry` are the literal names of its configured entrypoints.
 */
export type LoopNeedsOf<Ns extends readonly Typed[], Known, Entry> =
  Walk<Ns, Known> extends infer W
    ? [W] extends [never]
      ? LoopNeeds
      : [W] extends [Waiting]
        ? [Duplicated<W>] extends [never]
          ? Decide<LoopValues<W>, EntrySeeds<W, Entry>>
          : LoopNeeds
        : LoopNeeds
    : LoopNeeds;

/**
 * A choice of one value is a requirement. An entrypoint's seeds are required; they settle its loop's choice, and the
 * choice is dropped (a requirement left out is never wrong, a wrong one would be).
 */
type Decide<Choice, Entry> = undefined extends Choice
  ? LoopNeeds
  : [Entry] extends [never]
    ? [Choice] extends [never]
      ? LoopNeeds
      : IsUnion<Choice> extends true
        ? LoopNeeds<never, Choice>
        : LoopNeeds<Choice>
    : LoopNeeds<Entry>;
