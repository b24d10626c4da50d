/**
 * The routing sentinel a gate returns to end its path. A unique symbol: the string `"END"` is not accepted.
 *
 * @example
 * ```ts
 * import { route, END } from "@graph/core";
 * const decide = route({ targets: ["retrieve", END] }, ({ done }: { done: boolean }) => (done ? END : "retrieve"));
 * ```
 */
export const END: unique symbol = Symbol.for("@graph/END") as never;

/**
 * The type of {@link END}.
 *
 * @example
 * ```ts
 * const target: string | End = END;
 * ```
 */
export type End = typeof END;
