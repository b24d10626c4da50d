import type { BUDGET_KEY } from "../budget.js";
import type { Budget } from "../NodeContext.js";
import type { DidYouMean, GraphLabel, QuoteList } from "./messages.js";
import type { PauseOf } from "./ports.js";
import type { Empty, IsAny, Simplify } from "./util.js";

interface GraphTypes {
  readonly "~types": { readonly in: unknown; readonly out: unknown; readonly meta: unknown };
}
type In<G extends GraphTypes> = G["~types"]["in"];
type Out<G extends GraphTypes> = G["~types"]["out"];
type Fed<G extends GraphTypes> = G["~types"]["meta"] extends { readonly fed: infer F }
  ? IsAny<F> extends true
    ? Empty
    : F
  : Empty;

/**
 * What `runner.run(graph, { values })` accepts: the graph's inputs (required ones required, a loop seed the run
 * needs among them), plus any produced value, optional, with its type (supplying one skips its producer or seeds a
 * loop).
 *
 * @example
 * ```ts
 * const values: RunValuesOf<typeof rag> = { text: "hi", docs: ["cached"] };
 * ```
 */
export type RunValuesOf<G extends GraphTypes> =
  IsAny<In<G>> extends true
    ? Readonly<Record<string, any>>
    : Simplify<
        Omit<In<G>, keyof Fed<G>> &
          Pick<In<G>, RequiredFed<In<G>, Fed<G>>> &
          Optional<Omit<Fed<G>, RequiredFed<In<G>, Fed<G>>>> &
          Optional<Omit<Out<G>, keyof In<G> | keyof Fed<G>>>
      >;

/** Fed values the graph requires (loop seeds with no default or bound value); the others stay optional. */
type RequiredFed<I, F> = {
  // Assignability, not `Pick`: an open graph's index signature must not make a fed key look required.
  [K in keyof F & keyof I]-?: I extends { readonly [P in K]: unknown } ? K : never;
}[keyof F & keyof I];

/** Optional keys that also accept an explicit `undefined` (a value read off an earlier, partial result). */
type Optional<T> = { [K in keyof T]?: T[K] | undefined };

/**
 * The check of run values' keys `K`: a key `G` neither reads nor produces must be a message naming it (so the
 * compiler reports `✖ Unknown value 'topc' for graph 'rag': no node reads or produces it. Did you mean 'topic'?`),
 * any other key is left to {@link RunValuesOf}. Intersect it with the values' type, `K` inferred from the values.
 *
 * @example
 * ```ts
 * declare function start<G extends Graph, K extends PropertyKey>(graph: G, values: RunValuesOf<G> & UnknownValuesOf<G, K>): void;
 * ```
 */
export type UnknownValuesOf<G extends GraphTypes, K extends PropertyKey> = string extends K
  ? Empty
  : {
      readonly [P in K]: P extends keyof RunValuesOf<G>
        ? unknown
        : P extends typeof BUDGET_KEY
          ? Budget
          : UnknownValue<P, G>;
    };

type UnknownValue<P, G extends GraphTypes> = P extends string
  ? `✖ Unknown value '${P}' for ${GraphLabel<NameOf<G>>}: no node reads or produces it.${DidYouMean<P, keyof RunValuesOf<G> & string, InputList<G>>}`
  : "✖ Run values are keyed by name (a string)";
type InputList<G extends GraphTypes> = [keyof In<G>] extends [never]
  ? " It takes no inputs."
  : ` Its inputs: ${QuoteList<keyof In<G> & string>}.`;
type NameOf<G extends GraphTypes> = G["~types"]["meta"] extends { readonly name: infer N } ? N : string;

/** True when a run of `G` needs no values (every input optional, no loop waiting for a first value). */
export type NoValuesNeeded<G extends GraphTypes> =
  IsAny<In<G>> extends true ? true : Empty extends In<G> ? ([Choice<G>] extends [never] ? true : false) : false;

/** The values of which a fresh run must pass one (see `GraphMeta.seedChoice`). */
type Choice<G extends GraphTypes> =
  IsAny<G["~types"]["meta"]> extends true
    ? never
    : G["~types"]["meta"] extends { readonly seedChoice: infer C }
      ? IsAny<C> extends true
        ? never
        : C
      : never;

/**
 * The check that a fresh run's values (keys `K`) give each loop of `G` a first value: when the checker can't tell
 * which of a loop's values its first node reads (its nodes are named by their functions), the values must hold at
 * least one of them, else the compiler reports a missing property named by the message
 * (`✖ Missing a first value for the loop of graph 'refine': pass one of 'feedback', 'text' …`). Intersect it with
 * the values' type, `K` inferred from the values.
 *
 * @example
 * ```ts
 * declare function start<G extends Graph, K extends PropertyKey>(graph: G, values: RunValuesOf<G> & SeedChoiceOf<G, K>): void;
 * ```
 */
export type SeedChoiceOf<G extends GraphTypes, K extends PropertyKey> =
  Choice<G> extends infer C
    ? [C] extends [never]
      ? Empty
      : [C & K] extends [never]
        ? { readonly [P in SeedChoiceMessage<G, C>]: never }
        : Empty
    : Empty;

type SeedChoiceMessage<
  G extends GraphTypes,
  C,
> = `✖ Missing a first value for the loop of ${GraphLabel<NameOf<G>>}: pass one of ${QuoteList<C & string>} (the one its first node reads), bind it, or give its reader a default`;

/**
 * Where a run of `G` may pause, typed: the interrupt's path, its value's type and the answer's key.
 *
 * @example
 * ```ts
 * type P = PausesOf<typeof writer>; // PauseOf<"review", string, "verdict">
 * ```
 */
export type PausesOf<G extends GraphTypes> =
  IsAny<G["~types"]["meta"]> extends true
    ? PauseOf
    : G["~types"]["meta"] extends { readonly pauses: infer P }
      ? IsAny<P> extends true
        ? PauseOf
        : [P] extends [never]
          ? PauseOf<never, never, never>
          : P
      : PauseOf;

/**
 * What `G` produces (the record `RunResult` is typed by). With a GraphNode of non-literal name, any further key
 * (its nested result) is allowed, typed `unknown`.
 */
export type ResultOutputsOf<G extends GraphTypes> =
  IsAny<G["~types"]["meta"]> extends true
    ? Out<G>
    : G["~types"]["meta"] extends { readonly dynamic: true }
      ? Out<G> & { readonly [name: string]: unknown }
      : Out<G>;
