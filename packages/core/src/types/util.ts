/** Type-level helpers shared by the static graph types. All of them are linear in the size of their input. */

/** The empty record (`{}`): no known key. */
export type Empty = Record<never, never>;

/** Flattens an intersection into one object type (what editors show on hover). */
export type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** `A | B` ⇒ `A & B`, in one inference step (no recursion over the union). */
export type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void
  ? I
  : never;

/** True for `any` only. */
export type IsAny<T> = 0 extends 1 & T ? true : false;

/** True when `T` is a record with a string index signature (an untyped node's inputs). */
export type IsOpen<T> = string extends keyof T ? true : false;

/** Renames the keys of `T` by `M` (`{ old: "new" }`), all at once, so `{ a: "b", b: "a" }` swaps. */
export type RenameKeys<T, M> = Simplify<{
  [K in keyof T as K extends keyof M ? (M[K] extends string ? M[K] : K) : K]: T[K];
}>;

/** A renames map for `T`: every key must be one of `T`'s (an unknown key becomes `never`, naming it in the error). */
export type RenamesFor<T, M> = { readonly [K in keyof M]: K extends keyof T ? string : never };
