import { TaggedError } from "@graph/errors";

/** One list a `mapOver` was given: the mapped input's name, and its length (`undefined` when it is not an array). */
export interface MappedList {
  readonly name: string;
  readonly length: number | undefined;
}

/**
 * The values a mapped GraphNode (or `runner.map`) maps over don't make a list of items: a mapped value is not an
 * array, zipped lists differ in length, or a product would be too large. A run-time value, so the node fails with a
 * NodeExecutionError whose `cause` is this error; `lists` names each mapped input with its length.
 *
 * @example
 * ```ts
 * await runner.run(graph, { values }).catch((e) => isNodeExecutionError(e) && isMapInputError(e.cause) && console.log(e.cause.lists));
 * ```
 */
export class MapInputError extends TaggedError("MapInputError")<{
  /** The mapped node (or `runner.map`). */
  readonly nodeName: string;
  readonly reason: "notAnArray" | "unequalLengths" | "tooManyItems";
  readonly lists: readonly MappedList[];
}> {
  constructor(message: string, nodeName: string, reason: MapInputError["reason"], lists: readonly MappedList[]) {
    super({ message, nodeName, reason, lists });
  }
}

/**
 * True for a {@link MapInputError}.
 *
 * @example
 * ```ts
 * if (isMapInputError(e)) console.log(e.lists);
 * ```
 */
export const isMapInputError = (e: unknown): e is MapInputError => MapInputError.is(e);
