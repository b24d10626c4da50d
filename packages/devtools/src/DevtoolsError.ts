import { GraphError, isTaggedError } from "@graph/core";

/**
 * A devtools operation could not be done: not listening yet, no runner or checkpointer connected, an unknown
 * graph or workflow, nothing to answer. The message says what and how to fix it. The page shows it as is.
 *
 * @example
 * ```ts
 * try { devtools.url; } catch (e) { if (isDevtoolsError(e)) console.error(e.message); }
 * ```
 */
export class DevtoolsError extends GraphError<"DevtoolsError"> {
  readonly _tag = "DevtoolsError" as const;
  override readonly name = "DevtoolsError";
}

/** True for a {@link DevtoolsError} (also across duplicated package copies). */
export const isDevtoolsError = (value: unknown): value is DevtoolsError => isTaggedError(value, "DevtoolsError");
