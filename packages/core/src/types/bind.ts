import type { DidYouMean, GraphLabel, QuoteList } from "./messages.js";
import type { IsAny } from "./util.js";

/**
 * What `graph.bind(values)` accepts: the graph's inputs and loop-fed values, each with its type. Any other key must
 * be a message that says why, like the runtime's `GraphConfigError` (`✖ Cannot bind 'qeury': it is not an input of
 * graph 'rag'. Did you mean 'query'?`), so the compiler's error names the key and the fix.
 */
export type BindValues<In, Fed, Out, Name, V> = {
  readonly [K in keyof V]: K extends keyof In
    ? In[K]
    : K extends keyof Fed
      ? Fed[K]
      : K extends string
        ? K extends keyof Out
          ? `✖ Cannot bind '${K}': it is produced by a node of ${GraphLabel<Name>} and no node reads it. Values an edge produces can't be bound; pass '${K}' in run values to skip its producer.`
          : `✖ Cannot bind '${K}': it is not an input of ${GraphLabel<Name>}.${DidYouMean<K, (keyof In | keyof Fed) & string, [keyof In] extends [never] ? " It takes no inputs." : ` Its inputs: ${QuoteList<keyof In & string>}.`>}`
        : never;
};

/** A graph's static facts after `bind(values)` with keys `Keys`: binding a value of a loop's seed choice settles it. */
export type MetaAfterBind<Meta, Keys> =
  IsAny<Meta> extends true
    ? Meta
    : Meta extends { readonly seedChoice?: infer C }
      ? [C & Keys] extends [never]
        ? Meta
        : { readonly [K in keyof Meta]: K extends "seedChoice" ? never : Meta[K] }
      : Meta;
