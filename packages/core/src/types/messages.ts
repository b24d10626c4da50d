/**
 * Compile errors that read like the runtime's: a mistake surfaces as a string literal type (`"✖ Unknown value
 * 'topc' for graph 'rag': … Did you mean 'topic'?"`) the offending value is checked against, so the compiler's
 * message is ours. Everything here is evaluated only once a mistake is found (an unknown key, an unmatched gate
 * target), so a graph that type-checks pays nothing for it.
 */
import type { UnionToIntersection } from "./util.js";

/** One member of a union (which one is the compiler's choice; only used to walk small unions). */
export type LastOf<U> =
  UnionToIntersection<U extends unknown ? (x: U) => void : never> extends (x: infer L) => void ? L : never;

/** `'a', 'b', 'c'` for a small union of names (the order is the compiler's). */
export type QuoteList<U extends string, Acc extends string = ""> = [U] extends [never]
  ? Acc
  : LastOf<U> extends infer L extends string
    ? QuoteList<Exclude<U, L>, Acc extends "" ? `'${L}'` : `'${L}', ${Acc}`>
    : Acc;

/**
 * True when `A` becomes `B` by one edit: a changed, dropped, added or swapped character, or a change of case. Walks
 * the common prefix only, one character per step.
 */
type OneEdit<A extends string, B extends string> = A extends `${infer a}${infer ra}`
  ? B extends `${infer b}${infer rb}`
    ? a extends b
      ? OneEdit<ra, rb>
      : ra extends rb
        ? true
        : ra extends B
          ? true
          : A extends rb
            ? true
            : ra extends `${b}${infer rest}`
              ? rb extends `${a}${rest}`
                ? true
                : false
              : false
    : ra extends ""
      ? true
      : false
  : B extends `${string}${infer rb}`
    ? rb extends ""
      ? true
      : false
    : false;

/** The known names one edit away from `Name` (or equal to it but for case). */
type CloseNames<Name extends string, Known extends string> = Known extends unknown
  ? Lowercase<Known> extends Lowercase<Name>
    ? Known
    : OneEdit<Name, Known> extends true
      ? Known
      : never
  : never;

/** ` Did you mean 'topic'?` when a known name is one edit away, else `Otherwise` (like the runtime's hint). */
export type DidYouMean<Name extends string, Known extends string, Otherwise extends string = ""> = [
  CloseNames<Name, Known>,
] extends [never]
  ? Otherwise
  : ` Did you mean ${QuoteList<CloseNames<Name, Known>>}?`;

/** `graph 'rag'` for a graph with a literal name, else `this graph`. */
export type GraphLabel<Name> = [Name] extends [string]
  ? string extends Name
    ? "this graph"
    : `graph '${Name}'`
  : "this graph";
