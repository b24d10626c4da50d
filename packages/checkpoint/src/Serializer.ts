/**
 * Turning checkpointed values into text and back.
 *
 * The default format is JSON in which values JSON cannot represent become tagged objects:
 *
 * | value | stored as |
 * |---|---|
 * | `Date` | `{"$t":"Date","v":"2024-01-01T00:00:00.000Z"}` (`"v":null` for an invalid date) |
 * | `Map` | `{"$t":"Map","v":[[key, value], …]}` |
 * | `Set` | `{"$t":"Set","v":[item, …]}` |
 * | `BigInt` | `{"$t":"BigInt","v":"123"}` |
 * | `Uint8Array` (and `Buffer`) | `{"$t":"Uint8Array","v":"<base64>"}` (read back as `Uint8Array`) |
 * | `undefined` | `{"$t":"undefined"}` (kept as a present property / array item) |
 * | `NaN`, `Infinity`, `-Infinity`, `-0` | `{"$t":"Number","v":"NaN"}` … |
 * | an object with its own `$t` key | `{"$t":"Object","v":{…the object…}}` |
 *
 * Anything else (functions, symbols, circular references, class instances, `WeakMap`, `Promise`, other typed
 * arrays, symbol keys) is rejected with a `CheckpointError` whose `path` says where the value is, e.g.
 * `doc.meta[2]`, `cache.get("k")`, `tags.values()[0]`. Array holes are read back as `undefined`. Class instances
 * can be stored by registering their class with `createSerializer({ classes })` (`{"$t":"Class","n":name,"v":…}`).
 *
 * @module
 */
import { CheckpointError, isCheckpointError } from "./errors.js";
import { decodeFromText, encodeToText, failureReason, joinPath, SERIALIZATION_ADVICE } from "./internal/codec.js";

/**
 * Converts values to text and back. Implementations must round-trip what they accept exactly and throw for what
 * they cannot represent (ideally a `CheckpointError` with `path` set; anything else is wrapped by the adapter).
 *
 * @example
 * ```ts
 * const jsonOnly: Serializer = {
 *   serialize: (value) => JSON.stringify(value),
 *   deserialize: (text) => JSON.parse(text),
 * };
 * const cp = new MemoryCheckpointer({ serializer: jsonOnly });
 * ```
 */
export interface Serializer {
  serialize(value: unknown): string;
  deserialize(text: string): unknown;
}

/**
 * The default serializer (see the module documentation for the format).
 *
 * @example
 * ```ts
 * import { defaultSerializer } from "@graph/checkpoint";
 * const text = defaultSerializer.serialize({ at: new Date(0), tags: new Set(["a"]) });
 * const back = defaultSerializer.deserialize(text); // { at: Date(0), tags: Set { "a" } }
 * ```
 */
export const defaultSerializer: Serializer = Object.freeze({
  serialize: (value: unknown): string => encodeToText(value),
  deserialize: (text: string): unknown => decodeFromText(text),
});

/**
 * Where a stored value belongs, for error messages: the workflow, the node that wrote it, the operation, and the
 * path of the serialised value inside its record (e.g. `values` for a step's values).
 *
 * @example
 * ```ts
 * const where: StoredValueContext = { workflowId: "wf-1", nodeName: "embed", operation: "saveStep", path: "values" };
 * ```
 */
export interface StoredValueContext {
  readonly workflowId: string;
  readonly nodeName?: string;
  readonly operation: string;
  /** Path of the serialised value inside the stored record; prefixed to the serializer's own path. */
  readonly path?: string;
}

function describeWhere(context: StoredValueContext, fullPath: string): string {
  const at = fullPath === "" ? "a value" : `the value at '${fullPath}'`;
  const node = context.nodeName === undefined ? "" : ` written by node '${context.nodeName}'`;
  return `${at}${node} in workflow '${context.workflowId}'`;
}

function contextFields(context: StoredValueContext, path: string | undefined) {
  return {
    workflowId: context.workflowId,
    operation: context.operation,
    ...(context.nodeName === undefined ? {} : { nodeName: context.nodeName }),
    ...(path === undefined || path === "" ? {} : { path }),
  };
}

/** The engine's "Maximum call stack size exceeded" (a value nested deeper than recursion can walk). */
const isStackOverflow = (error: unknown): boolean => error instanceof RangeError && /call stack/i.test(error.message);

/**
 * Serialises a value for storage and turns any failure into a `CheckpointError` naming the workflow, the node
 * and the full value path (e.g. `values.doc.meta[2]`). Adapters call this so every backend reports failures the
 * same way.
 *
 * @example
 * ```ts
 * const text = serializeStored(defaultSerializer, step.values, {
 *   workflowId: step.workflowId, nodeName: step.nodeName, operation: "saveStep", path: "values",
 * });
 * ```
 */
export function serializeStored(serializer: Serializer, value: unknown, context: StoredValueContext): string {
  let text: unknown;
  try {
    text = serializer.serialize(value);
  } catch (cause) {
    const relative = isCheckpointError(cause) && cause.path !== undefined ? cause.path : "";
    const fullPath = joinPath(context.path ?? "", relative);
    const reason =
      typeof cause === "object" && cause !== null && failureReason in cause
        ? `${String((cause as { [failureReason]: unknown })[failureReason])}. ${SERIALIZATION_ADVICE}`
        : isStackOverflow(cause)
          ? "the value is nested too deeply to be stored (serialising it ran out of call stack: thousands of " +
            "levels of objects or arrays inside each other, such as a linked list or a tree built by recursion). " +
            "Nothing was written. How to fix: store a flatter shape (an array of items instead of a chain of " +
            "nested objects), or encode the structure to a string yourself before returning it."
          : `${cause instanceof Error ? cause.message : String(cause)}. ` +
            "Return plain data from the node, or fix the custom serializer.";
    throw new CheckpointError({
      message: `Cannot checkpoint ${describeWhere(context, fullPath)}: ${reason}`,
      ...contextFields(context, fullPath),
      cause,
    });
  }
  if (typeof text !== "string") {
    throw new CheckpointError({
      message:
        `Cannot checkpoint ${describeWhere(context, context.path ?? "")}: the serializer returned ` +
        `${typeof text} instead of a string. Fix the custom serializer.`,
      ...contextFields(context, context.path),
    });
  }
  return text;
}

/**
 * Deserialises a stored value, turning any failure into a `CheckpointError` naming the workflow and node
 * (corrupt rows must produce a clear error, never a crash).
 *
 * @example
 * ```ts
 * const values = deserializeStored(defaultSerializer, row.values, { workflowId: row.workflowId, operation: "getSteps" });
 * ```
 */
export function deserializeStored(serializer: Serializer, text: string, context: StoredValueContext): unknown {
  try {
    return serializer.deserialize(text);
  } catch (cause) {
    const relative = isCheckpointError(cause) && cause.path !== undefined ? cause.path : "";
    const fullPath = joinPath(context.path ?? "", relative);
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw new CheckpointError({
      message:
        `Cannot read ${describeWhere(context, fullPath)} from storage: ${detail} ` +
        "The stored row is corrupt or was written with a different serializer; configure the serializer that wrote " +
        "it, or delete the workflow.",
      ...contextFields(context, fullPath),
      cause,
    });
  }
}
