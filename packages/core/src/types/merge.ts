/**
 * A graph's types from its nodes' types. Every record is merged once, by one union-to-intersection step over the
 * node list (linear in the number of nodes); nothing scans the node tuple per key and nothing recurses over it.
 */

import type { LoopNeedsOf } from "./loops.js";
import type { DidYouMean, LastOf, QuoteList } from "./messages.js";
import type { AnyNodeTypes, PauseOf, Typed } from "./ports.js";
import type { GraphResult } from "./result.js";
import type { Empty, IsAny, IsOpen, Simplify, UnionToIntersection } from "./util.js";

type TypesOf<Ns extends readonly Typed[]> = Ns[number]["~types"];

/** Closed input records only: an untyped node (open record) adds no key and no check. */
type ClosedIn<T> = T extends AnyNodeTypes ? (IsOpen<T["in"]> extends true ? never : T["in"]) : never;
type AnyOpen<T> = T extends AnyNodeTypes ? IsOpen<T["in"]> : never;

/** Every consumer's input record merged: a key is required if one consumer requires it, its type satisfies all. */
type AllInputs<Ns extends readonly Typed[]> = UnionToIntersection<ClosedIn<TypesOf<Ns>>>;
/** Every producer's output record merged. */
type AllOutputs<Ns extends readonly Typed[]> = UnionToIntersection<TypesOf<Ns>["out"]>;

/*
 * Frames (`node({ frames: true })`): the values that hold one value per frame are the frames node's output and,
 * transitively, the outputs of every node that reads one of them (`gather: true` nodes excepted). Each node of a
 * pipeline is typed per frame; the graph's result holds each such value as a list (frame order), and a `gather`
 * node's inputs are checked against the lists. The closure takes a fixed number of rounds (pipelines deeper than
 * that are typed per frame past it), and costs nothing for graphs without frames.
 */
type FrameSources<T> = T extends { readonly frames: true; readonly out: infer O } ? keyof O : never;
type Spread<T, P> = T extends AnyNodeTypes
  ? T extends { readonly gather: true }
    ? never
    : [keyof T["in"] & P] extends [never]
      ? never
      : keyof T["out"]
  : never;
type Round<T, P> = P | Spread<T, P>;
/** Keys of values that hold one value per frame of the sources whose outputs are `P0`. */
type PerFrameFrom<T, P0> = Round<T, Round<T, Round<T, Round<T, Round<T, Round<T, Round<T, Round<T, P0>>>>>>>>;
/** Keys of values that hold one value per frame. */
type PerFrame<T> = FrameSources<T> extends infer P0 ? ([P0] extends [never] ? never : PerFrameFrom<T, P0>) : never;
/**
 * The pipeline's own result under the frames node's name (`result.get("pages/written")`), like a GraphNode's: its
 * frames and per-frame values as lists. Only for a frames node whose name the checker can read (given in its
 * options); one named by its function makes the graph's result accept any path (see {@link FramesDynamic}).
 */
type FramesResult<S, T, Out> = S extends { readonly frames: true; readonly name: infer N extends string }
  ? string extends N
    ? never
    : S extends { readonly out: infer O }
      ? { readonly [K in N]: GraphResult<Simplify<{ [V in PerFrameFrom<T, keyof O> & keyof Out]: Out[V][] }>, never> }
      : never
  : never;
type FramesResults<T, Out, P> = [P] extends [never] ? Empty : UnionToIntersection<FramesResult<T, T, Out>>;
/** A frames node named by its function: its pipeline's result is under a name the checker can't read. */
type FramesDynamic<T> = T extends { readonly frames: true; readonly name: infer N }
  ? string extends N
    ? true
    : never
  : never;
/** The outputs as the graph's result holds them: per-frame values as lists. */
type Gathered<Out, P> = [P] extends [never] ? Out : { [K in keyof Out]: K extends P ? Out[K][] : Out[K] };
type GatherIn<T> = T extends { readonly gather: true } ? ClosedIn<T> : never;
type FrameIn<T> = T extends { readonly gather: true } ? never : ClosedIn<T>;
/** Wiring errors of a graph with frames: per-frame consumers against per-frame values, `gather` ones against lists. */
type FrameEdgeErrors<Ns extends readonly Typed[], P> =
  | EdgeErrors<UnionToIntersection<FrameIn<TypesOf<Ns>>>, AllOutputs<Ns>>
  | EdgeErrors<UnionToIntersection<GatherIn<TypesOf<Ns>>>, Gathered<AllOutputs<Ns>, P>>;

type Lookup<K, Out, In> = K extends keyof Out ? Out[K] : K extends keyof In ? Exclude<In[K], undefined> : unknown;
/** An interrupt's pause gets the type of the value it shows (its producer's, else what the caller passes). */
type ResolvePauses<P, Out, In> = P extends { readonly input: infer I; readonly nodeName: infer N extends string }
  ? PauseOf<
      N,
      P extends { readonly value: infer V } ? (unknown extends V ? Lookup<I, Out, In> : V) : unknown,
      P extends { readonly responseKey: infer K extends string } ? K : string
    >
  : P;

/** Open inputs (an untyped node) let the caller pass any extra key. */
type OpenRecord<Open> = true extends Open ? { readonly [key: string]: unknown } : Empty;

/**
 * Values a node reads without a default and also writes (`agent({ messages }) → messages`): such a read comes back
 * to the node around a loop, so the runtime treats it as a seed the first run must supply. Only the keys both
 * records share are looked at, so a node costs nothing when it feeds nothing back to itself.
 */
type SelfFed<T> = T extends AnyNodeTypes
  ? [keyof T["in"] & keyof T["out"]] extends [never]
    ? never
    : IsOpen<T["in"]> extends true
      ? never
      : {
          [K in keyof T["in"] & keyof T["out"]]-?: Empty extends Pick<T["in"], K> ? never : K;
        }[keyof T["in"] & keyof T["out"]]
  : never;
/** Values a node writes without reading them back (a producer that may run before any loop comes around). */
type ProducedOnly<T> = T extends AnyNodeTypes ? Exclude<keyof T["out"], SelfFed<T>> : never;
/**
 * The loop seeds the runtime surely requires: values whose every producer reads them without a default. Among those
 * producers some node's read can only come around the loop (every producer's edge into it is a feedback edge), so
 * the graph's `inputs.seeds` holds the value unless it is bound. A value with one producer that does not read it
 * back is left optional (whether it is a seed depends on which node the runtime picks as the loop's entry).
 */
type RequiredSeeds<T> =
  SelfFed<T> extends infer S ? ([S] extends [never] ? never : Exclude<S, ProducedOnly<T>>) : never;

/** What the graph needs from outside: inputs no node of the graph produces, and the loop seeds it requires. */
type GraphInputs<In, Out, Open, Seeds> = Simplify<
  Omit<In, keyof Out> & { [K in Seeds & keyof In]: Exclude<In[K], undefined> } & OpenRecord<Open>
>;

/** Static facts about a graph besides its inputs and outputs. */
export interface GraphMeta {
  /** The graph's name (its GraphNode's default name). */
  readonly name: string;
  /** Its nodes' names. */
  readonly nodes: string;
  /** Where a run of it may pause. */
  readonly pauses: unknown;
  /** True when a GraphNode's name is not a literal: results then accept any path. */
  readonly dynamic: boolean;
  /** Produced values some node also consumes (loop seeds among them), with the consumers' type: `bind` and
   *  run values accept these. */
  readonly fed: object;
  /**
   * Values of a loop the checker can't tell the entry of (nodes named by their functions): a fresh run must pass at
   * least one of them (the runtime reads the entry's). `never` when there is no such loop.
   */
  readonly seedChoice?: PropertyKey;
  /** Values a node reads with a default and writes back: loop state the graph seeds itself (see `asNode`). */
  readonly ownSeeded?: PropertyKey;
}

/**
 * What the loops of `Ns` need on a fresh run (see loops.ts), beyond the accumulators `RequiredSeeds` finds. With
 * explicit `edges` the wiring is not the names', so nothing more is inferred.
 */
type LoopsOf<Ns extends readonly Typed[], Entry, Explicit> = Explicit extends true
  ? { readonly required: never; readonly choice: never }
  : LoopNeedsOf<Ns, Exclude<keyof AllInputs<Ns>, keyof AllOutputs<Ns>> | RequiredSeeds<TypesOf<Ns>>, Entry>;

/** The types `new Graph(nodes, { name, entrypoint, edges })` gets. */
export interface MergedGraph<Ns extends readonly Typed[], Name extends string, Entry = never, Explicit = false> {
  readonly in: GraphInputs<
    AllInputs<Ns>,
    AllOutputs<Ns>,
    AnyOpen<TypesOf<Ns>>,
    RequiredSeeds<TypesOf<Ns>> | LoopsOf<Ns, Entry, Explicit>["required"]
  >;
  readonly out: Simplify<
    Gathered<AllOutputs<Ns>, PerFrame<TypesOf<Ns>>> & FramesResults<TypesOf<Ns>, AllOutputs<Ns>, PerFrame<TypesOf<Ns>>>
  >;
  readonly meta: {
    readonly name: Name;
    readonly nodes: TypesOf<Ns>["name"];
    readonly pauses: ResolvePauses<TypesOf<Ns>["pauses"], AllOutputs<Ns>, AllInputs<Ns>>;
    readonly fed: FedValues<AllInputs<Ns>, AllOutputs<Ns>>;
    readonly dynamic: true extends TypesOf<Ns>["dynamic"] | FramesDynamic<TypesOf<Ns>> ? true : false;
    readonly seedChoice: LoopsOf<Ns, Entry, Explicit>["choice"];
    readonly ownSeeded: SelfSeeded<TypesOf<Ns>>;
  };
}

/** Values a node reads with a default and also writes (`({ log = [] }) => [...log, x]`): loop state it seeds itself. */
type SelfSeeded<T> = T extends AnyNodeTypes
  ? [keyof T["in"] & keyof T["out"]] extends [never]
    ? never
    : IsOpen<T["in"]> extends true
      ? never
      : {
          [K in keyof T["in"] & keyof T["out"]]-?: Empty extends Pick<T["in"], K> ? K : never;
        }[keyof T["in"] & keyof T["out"]]
  : never;

/** Values both produced and consumed, typed as the consumers need them (a loop's seed, a skipped producer). */
type FedValues<In, Out> = { [K in keyof In & keyof Out]: Exclude<In[K], undefined> };

/** A producer typed `unknown` is untyped (a JavaScript function, an interrupt with no declared answer): not checked. */
type EdgeErrors<In, Out> = {
  [K in keyof In & keyof Out & string]: unknown extends Out[K]
    ? never
    : [Out[K]] extends [Exclude<In[K], undefined>]
      ? never
      : [Exclude<In[K], undefined>] extends [never]
        ? `✖ Value '${K}': its consumers declare types no value can satisfy at once`
        : `✖ Value '${K}': its producer's type is not assignable to the type a consumer declares`;
}[keyof In & keyof Out & string];

/** A node's name when the checker can read it (given in the options, `withName`, a named graph's `asNode()`). */
type LiteralName<T> = T extends AnyNodeTypes ? (string extends T["name"] ? never : T["name"]) : never;

/**
 * Gate targets that name no node. With every node's name known, each such target is an error. A node named by its
 * function (`node({ output }, function draft() {})`) has a name TypeScript does not type (a function's `name` is
 * `string`), so a target matching no known name may be that node: then only the count is checked — more distinct
 * unmatched targets than nodes of unknown name means some target is misspelled. A target typed `string` (a
 * non-literal) is not checked. Nothing here is evaluated unless some target matches no known name.
 */
type TargetErrors<Ns extends readonly Typed[], Targets> = string extends Targets
  ? never
  : Exclude<Targets, LiteralName<TypesOf<Ns>>> extends infer Unmatched extends string
    ? [Unmatched] extends [never]
      ? never
      : string extends TypesOf<Ns>["name"]
        ? UnknownNameCount<Unmatched, UnnamedIndex<Ns>> extends infer N extends number
          ? `✖ Gate targets ${QuoteList<Unmatched>} match no node name the checker knows, and only ${N} node(s) have a name it can't read (a function's own name): a target is misspelled. Name the targeted nodes in their options to have every target checked`
          : never
        : `✖ Gate target '${Unmatched}' is not a node of this graph.${DidYouMean<Unmatched, LiteralName<TypesOf<Ns>>>}`
    : never;

/** The positions of nodes whose name is not a literal. */
type UnnamedIndex<Ns extends readonly Typed[]> = {
  [I in keyof Ns]: string extends Ns[I]["~types"]["name"] ? I : never;
}[number];

/**
 * The number of nodes of unknown name when there are fewer of them than unmatched targets (else `false`: every
 * unmatched target may be one of them). Takes one member of each union per step, so it stops after as many steps
 * as there are unmatched targets.
 */
type UnknownNameCount<Targets, Unnamed, Count extends unknown[] = []> = [Targets] extends [never]
  ? false
  : [Unnamed] extends [never]
    ? Count["length"]
    : UnknownNameCount<Exclude<Targets, LastOf<Targets>>, Exclude<Unnamed, LastOf<Unnamed>>, [...Count, 0]>;

/** `Ns` when the wiring type-checks, else a one-element tuple whose message names the offending value. */
export type CheckedNodes<Ns extends readonly Typed[]> =
  IsAny<Ns[number]> extends true
    ? Ns
    : [
          | (PerFrame<TypesOf<Ns>> extends infer P
              ? [P] extends [never]
                ? EdgeErrors<AllInputs<Ns>, AllOutputs<Ns>>
                : FrameEdgeErrors<Ns, P>
              : never)
          | TargetErrors<Ns, TypesOf<Ns>["targets"]>,
        ] extends [infer E]
      ? [E] extends [never]
        ? Ns
        : readonly [E]
      : Ns;
