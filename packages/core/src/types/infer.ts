import type * as z from "zod";
import type { Empty, IsAny, Simplify } from "./util.js";

/** A record of zod schemas, the `inputs` form that validates. */
export type SchemaRecord = Readonly<Record<string, z.ZodType>>;

/**
 * The type the node function's first parameter gets when it is not annotated: `z.output` of each schema, `any` for
 * each name of an `inputs` array, `any` for everything when nothing is declared (the untyped, JavaScript case).
 */
export type ParamFor<Inputs> = [Inputs] extends [never]
  ? Record<string, any>
  : Inputs extends SchemaRecord
    ? { -readonly [K in keyof Inputs]: z.output<Inputs[K]> }
    : Inputs extends readonly string[]
      ? { [K in Inputs[number]]: any }
      : Record<string, any>;

type SchemaInputs<S extends SchemaRecord> = Simplify<
  { -readonly [K in keyof S as undefined extends z.input<S[K]> ? never : K]: z.input<S[K]> } & {
    -readonly [K in keyof S as undefined extends z.input<S[K]> ? K : never]?: z.input<S[K]>;
  }
>;

/** Array-form inputs: the annotation's type when there is one, else `unknown`; a default makes the key optional. */
type NamedInputs<Names extends string, Param, Defaults extends PropertyKey> = Simplify<
  { [K in Exclude<Names, Defaults>]: ParamValue<Param, K> } & { [K in Names & Defaults]?: ParamValue<Param, K> }
>;
type ParamValue<Param, K extends PropertyKey> = K extends keyof Param
  ? IsAny<Param[K]> extends true
    ? unknown
    : Exclude<Param[K], undefined>
  : unknown;

/**
 * A node's input record (what `InputsOf` shows) from its `inputs` option and its function's first parameter.
 * With nothing declared and an unannotated function the inputs are open (`Record<string, any>`): the graph then
 * accepts any extra key.
 */
export type InputsFrom<Inputs, Param, Defaults extends PropertyKey> = [Inputs] extends [never]
  ? Param
  : Inputs extends SchemaRecord
    ? SchemaInputs<Inputs>
    : Inputs extends readonly string[]
      ? NamedInputs<Inputs[number], Param, Defaults>
      : Param;

/** The value a node function's return becomes: awaited; a generator's return value, else its chunks. */
type Produced<R> =
  IsAny<R> extends true
    ? any
    : R extends Generator<infer Y, infer T, any> | AsyncGenerator<infer Y, infer T, any>
      ? // biome-ignore lint/suspicious/noConfusingVoidType: a generator declared to return nothing returns `void`.
        [T] extends [undefined] | [void]
        ? Chunks<Y>
        : undefined extends T
          ? Exclude<T, undefined> | Chunks<Y>
          : T
      : Awaited<R>;
/** A generator that returns nothing yields its output: joined when every chunk is a string, else an array. */
type Chunks<Y> = [Y] extends [string] ? string : Y[];

/** `outputSchema` wins over the function's return type (it is what the value is validated as). */
export type OutputsWithSchema<Out, S> = [S] extends [never]
  ? Out
  : S extends z.ZodType
    ? { [K in keyof Out]: z.output<S> }
    : S extends SchemaRecord
      ? { [K in keyof Out]: K extends keyof S ? z.output<S[K]> : Out[K] }
      : Out;

/** The output record of `output: O` for a function returning `R`. */
type OutputsFrom<O, R> = [O] extends [never]
  ? Empty
  : O extends string
    ? { [K in O]: Produced<R> }
    : O extends readonly string[]
      ? ManyOutputs<O, Produced<R>>
      : Empty;

type ManyOutputs<O extends readonly string[], V> =
  IsAny<V> extends true
    ? { [K in O[number]]: any }
    : V extends readonly unknown[]
      ? { [I in keyof O & `${number}` as O[I] & string]: I extends keyof V ? V[I] : V[number] }
      : V extends object
        ? { [K in O[number]]: K extends keyof V ? V[K] : unknown }
        : { [K in O[number]]: unknown };

/** The first parameter's type of a node function; `{}` when it takes none, open when it is `never` (untyped). */
export type ParamOf<F> = F extends (...args: infer A) => unknown
  ? A extends []
    ? Empty
    : [Exclude<A[0], undefined>] extends [never]
      ? Record<string, any>
      : Exclude<A[0], undefined>
  : Empty;

/**
 * A node function whose first parameter is contextually typed by `P`. Declared as a method so an annotated
 * parameter (`{ text: string }`) is accepted against the wider `P` (method parameters are compared bivariantly).
 */
export type NodeFn<P, Ctx, R = unknown> = { bivariant(inputs: P, ctx: Ctx): R }["bivariant"];

/** Anything, spelled so that an array literal returned for several outputs is read as a tuple (one type each). */
type TupleHint =
  | readonly [unknown, ...unknown[]]
  | PromiseLike<readonly [unknown, ...unknown[]]>
  | Empty
  | null
  | undefined;
/** The return type a node function is contextually typed with: a tuple hint when it has several outputs. */
export type ReturnHint<O> = [O] extends [never] ? unknown : O extends readonly string[] ? TupleHint : unknown;

/** What a frames node yields: one value per frame. */
type Yielded<R> =
  IsAny<R> extends true
    ? any
    : R extends Generator<infer Y, any, any> | AsyncGenerator<infer Y, any, any>
      ? Y
      : unknown;

/** The output record of a node: with `frames`, each consumer sees one yielded value (a frame) at a time. */
export type FrameOutputs<Fr, O, R> = [Fr] extends [false]
  ? OutputsFrom<O, R>
  : [O] extends [string]
    ? { [K in O]: Yielded<R> }
    : OutputsFrom<O, R>;

/** Phantom markers of a node's `~types` that the graph types read: a frames source, a gathering consumer. */
export type NodeFlags<Fr, Ga> = ([Fr] extends [false] ? Empty : { readonly frames: true }) &
  ([Ga] extends [true] ? { readonly gather: true } : Empty);
