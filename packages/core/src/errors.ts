import { TaggedError } from "@graph/errors";

/**
 * A graph or node was defined in a way that cannot run: bad names, unknown gate targets, conflicting producers,
 * cycles without a way out, deadlocks, type mismatches under `strictTypes`. Thrown when the graph or node is built,
 * never during a run. The message says what is wrong, where, and how to fix it.
 *
 * @example
 * ```ts
 * import { Graph, isGraphConfigError } from "@graph/core";
 * try { new Graph([a, b]); } catch (e) { if (isGraphConfigError(e)) console.error(e.message); }
 * ```
 */
export class GraphConfigError extends TaggedError("GraphConfigError")<{
  /** Node or graph the problem is about, when there is one. */
  readonly where: string | undefined;
}> {
  constructor(message: string, options: { where?: string; cause?: unknown } = {}) {
    super({ message, where: options.where, cause: options.cause });
  }
}

/**
 * A rename (`withInputs`, `withOutputs`) named a port the node does not have. The message lists the current ports
 * and, when the name was renamed earlier, says what it became (`'text' was renamed to 'raw'`).
 *
 * @example
 * ```ts
 * try { embed.withInputs({ txt: "raw" }); } catch (e) { if (isRenameError(e)) console.error(e.message); }
 * ```
 */
export class RenameError extends TaggedError("RenameError")<{ readonly nodeName: string; readonly port: string }> {
  constructor(message: string, nodeName: string, port: string) {
    super({ message, nodeName, port });
  }
}

/**
 * True for a {@link GraphConfigError} (checks the `_tag` and the `@graph` brand, so it works across package copies).
 *
 * @example
 * ```ts
 * if (isGraphConfigError(error)) console.log(error.where);
 * ```
 */
export const isGraphConfigError = (value: unknown): value is GraphConfigError => GraphConfigError.is(value);

/**
 * True for a {@link RenameError}.
 *
 * @example
 * ```ts
 * if (isRenameError(error)) console.log(error.port);
 * ```
 */
export const isRenameError = (value: unknown): value is RenameError => RenameError.is(value);

/**
 * A gate returned something it may not: a target it did not declare, the string "END" instead of the `END`
 * sentinel, a non-boolean from `ifElse`, or a Promise (gates must be synchronous). Carries the bad value.
 *
 * @example
 * ```ts
 * if (isRoutingError(e)) console.error(e.gate, e.value);
 * ```
 */
export class RoutingError extends TaggedError("RoutingError")<{ readonly gate: string; readonly value: unknown }> {
  constructor(message: string, gate: string, value: unknown) {
    super({ message, gate, value });
  }
}

/**
 * True for a {@link RoutingError}.
 *
 * @example
 * ```ts
 * if (isRoutingError(error)) console.log(error.value);
 * ```
 */
export const isRoutingError = (value: unknown): value is RoutingError => RoutingError.is(value);
