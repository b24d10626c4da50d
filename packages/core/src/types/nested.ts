import type { Empty, IsAny, IsOpen, Simplify } from "./util.js";

/**
 * The graph's own loop state as the checker sees it: inputs it may do without (bound, or defaulted) that it also
 * writes. Only keys both records share are looked at, so a graph that writes none of its inputs costs nothing.
 */
type PrivateKeys<In, Out> =
  IsAny<In> extends true
    ? never
    : IsOpen<In> extends true
      ? never
      : { [K in keyof In & keyof Out]-?: Empty extends Pick<In, K> ? K : never }[keyof In & keyof Out];

/** The values of a graph's own loop state, with their types: a GraphNode takes one only when it is mapped in. */
export type PrivateStateOf<In, Out> = [PrivateKeys<In, Out>] extends [never]
  ? Empty
  : Simplify<{ [K in PrivateKeys<In, Out>]?: In[K] }>;

/** What a GraphNode of a graph takes: the graph's inputs without its own loop state. */
export type NodeInputsOf<In, Out> = [PrivateKeys<In, Out>] extends [never]
  ? In
  : Simplify<Omit<In, PrivateKeys<In, Out>>>;

/** Loop state seeded by a node's default (the graph's type does not list it as an input), typed as its readers need. */
export type DefaultSeededOf<Meta> =
  IsAny<Meta> extends true
    ? Empty
    : Meta extends { readonly ownSeeded?: infer K; readonly fed: infer Fed }
      ? [K & keyof Fed] extends [never]
        ? Empty
        : Simplify<{ [V in K & keyof Fed]?: Fed[V] }>
      : Empty;
